// Same order, but every job's ratio is kept as a reduced fraction (gcd) and the sort is a
// hand-written top-down merge sort that copies into temporary vectors: O(n log n) with a
// heavy constant.
#include <bits/stdc++.h>
using namespace std;

struct Job {
    long long t, w, num, den;  // num/den = t/w reduced
};

static bool before(const Job &a, const Job &b) {
    if (a.num == b.num && a.den == b.den) return false;
    return a.num * b.den < b.num * a.den;
}

static void mergeSort(vector<Job> &v) {
    if (v.size() < 2) return;
    size_t mid = v.size() / 2;
    vector<Job> left(v.begin(), v.begin() + mid), right(v.begin() + mid, v.end());
    mergeSort(left);
    mergeSort(right);
    size_t i = 0, j = 0, k = 0;
    while (i < left.size() && j < right.size())
        v[k++] = before(right[j], left[i]) ? right[j++] : left[i++];
    while (i < left.size()) v[k++] = left[i++];
    while (j < right.size()) v[k++] = right[j++];
}

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<Job> jobs(n);
    for (auto &j : jobs) {
        scanf("%lld %lld", &j.t, &j.w);
        long long g = __gcd(j.t, j.w);
        j.num = j.t / g;
        j.den = j.w / g;
    }
    mergeSort(jobs);
    long long now = 0, total = 0;
    for (auto &j : jobs) {
        now += j.t;
        total += j.w * now;
    }
    printf("%lld\n", total);
    return 0;
}
