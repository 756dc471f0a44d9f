"""SAGA (Ma et al., 2025): multidimensional and differential analysis for test generation."""

from tczoo.methods.saga.method import Saga, SagaParams

__all__ = ["Saga", "SagaParams"]
