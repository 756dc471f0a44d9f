/* tczoo run browser: plain JavaScript, no library, no network.
 *
 * Safety rule: everything shown is text a model or a program may have written, so the
 * page never parses data as HTML. Elements are made with el(); strings always become
 * text nodes (textContent); attributes are set one by one and links are built here
 * from numbers. There is no innerHTML anywhere in this file.
 *
 * Data: data/index.js calls TCZOO.index(summary); opening a problem loads
 * data/rR/pP.js with a <script> element (file:// pages may not fetch()), which calls
 * TCZOO.chunk(name, data).
 */
(function () {
  "use strict";

  var INDEX = null;
  var chunks = {};
  var waiting = {};
  var PAGE = 50;

  // ------------------------------------------------------------------ DOM helpers

  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) {
      for (var k in props) {
        if (!Object.prototype.hasOwnProperty.call(props, k) || props[k] === undefined || props[k] === null) continue;
        if (k === "class") node.className = props[k];
        else if (k === "text") node.textContent = String(props[k]);
        else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), props[k]);
        else node.setAttribute(k, String(props[k]));
      }
    }
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  function add(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); return; }
    if (typeof child === "object" && child.nodeType) { node.appendChild(child); return; }
    node.appendChild(document.createTextNode(txt(child)));
  }

  // A text field from the data: a string, or {clip, of} when the build kept only part.
  function txt(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "object" && "clip" in v) return v.clip;
    if (typeof v === "object") return JSON.stringify(v, null, 1);
    return String(v);
  }

  function link(href, label, cls) { return el("a", { href: href, class: cls }, label); }

  function num(v, digits) {
    if (v === null || v === undefined || v === "") return "";
    if (typeof v !== "number") return String(v);
    return digits === undefined ? String(v) : v.toFixed(digits);
  }

  // dollars, or what the data says instead ("not priced": a model nothing prices)
  function money(v) { return typeof v === "string" ? v : v ? "$" + Number(v).toFixed(4) : "$0"; }

  // A long text: the first lines shown, the rest behind a button.
  function longText(value, opts) {
    opts = opts || {};
    var full = txt(value);
    var lines = opts.lines || 12, chars = opts.chars || 1500;
    var head = full.split("\n").slice(0, lines).join("\n");
    if (head.length > chars) head = head.slice(0, chars);
    var pre = el("pre", { class: "text" + (opts.cls ? " " + opts.cls : "") }, head);
    var box = el("div", { class: "longtext" }, pre);
    var cut = value && typeof value === "object" && "clip" in value;
    if (head.length < full.length) {
      var more = el("button", { class: "more", type: "button" }, "show all (" + full.length + " chars)");
      more.addEventListener("click", function () {
        pre.textContent = full;
        more.remove();
      });
      box.appendChild(more);
    }
    if (cut) box.appendChild(el("div", { class: "note" }, "the site keeps the first " + full.length + " of " +
      value.of + " characters; the run directory has all of it"));
    if (full === "" && !opts.keepEmpty) pre.classList.add("empty");
    return box;
  }

  function kv(obj) {
    var t = el("table", { class: "kv" });
    Object.keys(obj || {}).forEach(function (k) {
      var v = obj[k];
      var cell = (v !== null && typeof v === "object" && !("clip" in v)) ?
        el("pre", { class: "json" }, JSON.stringify(v, null, 2)) : txt(v);
      t.appendChild(el("tr", null, el("th", null, k), el("td", null, cell)));
    });
    return t;
  }

  function section(title, id) {
    var s = el("section", { id: id });
    s.appendChild(el("h2", null, title));
    return s;
  }

  function table(columns, rows, cls) {
    var t = el("table", { class: cls || "grid" });
    t.appendChild(el("thead", null, el("tr", null, columns.map(function (c) { return el("th", null, c); }))));
    var body = el("tbody");
    rows.forEach(function (r) { body.appendChild(r.nodeType ? r : el("tr", null, r.map(function (c) { return el("td", null, c); }))); });
    t.appendChild(body);
    return t;
  }

  // ------------------------------------------------------------------ data loading

  function loadChunk(name) {
    if (chunks[name]) return Promise.resolve(chunks[name]);
    if (!/^r\d+\/p\d+$/.test(name)) return Promise.reject(new Error("bad data name"));
    if (!waiting[name]) {
      waiting[name] = new Promise(function (resolve, reject) {
        var s = el("script", { src: "data/" + name + ".js" });
        s.onerror = function () { delete waiting[name]; reject(new Error("cannot load data/" + name + ".js (was the site folder moved or cut?)")); };
        s.onload = function () { if (!chunks[name]) reject(new Error("data/" + name + ".js holds no data")); };
        waitingResolvers[name] = resolve;
        document.head.appendChild(s);
      });
    }
    return waiting[name];
  }
  var waitingResolvers = {};

  window.TCZOO = {
    index: function (data) { INDEX = data; route(); },
    chunk: function (name, data) {
      chunks[name] = data;
      if (waitingResolvers[name]) { waitingResolvers[name](data); delete waitingResolvers[name]; }
    }
  };

  // ------------------------------------------------------------------ routing

  function parseHash() {
    var h = location.hash.replace(/^#\/?/, "");
    var q = {};
    var qi = h.indexOf("?");
    if (qi >= 0) {
      h.slice(qi + 1).split("&").forEach(function (part) {
        if (!part) return;
        var eq = part.indexOf("=");
        var k = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
        q[k] = eq < 0 ? "" : decodeURIComponent(part.slice(eq + 1));
      });
      h = h.slice(0, qi);
    }
    return { parts: h ? h.split("/") : [], q: q };
  }

  function hashWith(q) {
    var parts = Object.keys(q).filter(function (k) { return q[k] !== "" && q[k] !== undefined && q[k] !== null; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(q[k]); });
    return "#/" + (parts.length ? "?" + parts.join("&") : "");
  }

  function route() {
    if (!INDEX) return;
    var app = document.getElementById("app");
    app.textContent = "";
    nav();
    var h = parseHash(), p = h.parts;
    var view;
    try {
      if (p[0] === "r" && p.length === 2) view = runPage(+p[1]);
      else if (p[0] === "p" && p.length === 2) view = problemPage(+p[1]);
      else if (p[0] === "u" && p.length === 4) view = unitPage(+p[1], +p[2], +p[3]);
      else if (p[0] === "x" && p.length === 5) view = exchangePage(+p[1], +p[2], +p[3], +p[4]);
      else view = summaryPage(h.q);
    } catch (e) {
      view = el("p", { class: "error" }, "cannot show this page: " + e.message);
    }
    app.appendChild(view);
    if (!p.length || p[0] === "") return;
    window.scrollTo(0, 0);
  }

  window.addEventListener("hashchange", route);

  function nav() {
    var n = document.getElementById("nav");
    n.textContent = "";
    n.appendChild(link("#/", "summary"));
    INDEX.runs.forEach(function (r, i) { n.appendChild(link("#/r/" + i, "run: " + txt(r.name))); });
  }

  // ------------------------------------------------------------------ summary

  function summaryPage(q) {
    var root = el("div", { class: "page summary" });
    var grids = INDEX.grids || [];
    var inGrid = {};
    grids.forEach(function (g) { g.cells.forEach(function (c) { if (c.run !== null && c.run !== undefined) inGrid[c.run] = 1; }); });
    var alone = [];
    INDEX.runs.forEach(function (r, i) { if (!inGrid[i]) alone.push(i); });
    var title = grids.length === 1 && !alone.length ? "Comparison " + txt(grids[0].name) :
      grids.length ? grids.length + " comparison" + (grids.length > 1 ? "s" : "") + (alone.length ? " and " + alone.length + " run" + (alone.length > 1 ? "s" : "") : "") :
      INDEX.runs.length === 1 ? "Run " + txt(INDEX.runs[0].name) : INDEX.runs.length + " runs side by side";
    root.appendChild(el("h1", null, title));
    grids.forEach(function (g, k) { root.appendChild(gridMatrix(g, k)); });
    if (alone.length) {
      var cols = el("div", { class: "runs cols-" + Math.min(alone.length, 3) });
      alone.forEach(function (i) { cols.appendChild(runCard(INDEX.runs[i], i)); });
      root.appendChild(cols);
    }
    if (INDEX.plots && INDEX.plots.length) root.appendChild(plots(INDEX.plots, "all runs"));
    root.appendChild(explorer(q));
    return root;
  }

  // A metric in percent (HackRate, PassRate, ASR, TBR ...): its cells are coloured on a scale.
  function percentMetric(name) {
    return /(^|[^A-Za-z])(HR|PR|Avg|TBR|GI|ITR)$|hack_rate|pass_rate|^tbr$|^gi$|^itr$/.test(txt(name));
  }

  function heat(value) {
    var v = parseFloat(txt(value));
    if (isNaN(v) || v < 0 || v > 100) return "";
    return " heat heat-" + Math.round(v / 10);
  }

  // A comparison (tczoo compare / reproduce): one models x methods matrix; each cell is
  // the headline metric as tczoo report prints it, and its units, each a link to its page.
  function gridMatrix(g, k) {
    var several = (INDEX.grids || []).length > 1 || INDEX.runs.length > g.cells.length;
    var box = section((several ? "Comparison " + txt(g.name) + ": m" : "M") + "odels × methods", "grid-" + k);
    box.classList.add("comparison");
    box.appendChild(el("p", { class: "path" }, txt(g.path)));
    if (g.error) { box.appendChild(el("p", { class: "error" }, txt(g.error))); return box; }
    var byCell = {};
    g.cells.forEach(function (c) { byCell[c.model + "/" + c.method] = c; });
    var unitsOf = {};
    INDEX.units.forEach(function (u) { (unitsOf[u.r] = unitsOf[u.r] || []).push(u); });
    var head = el("tr", null, el("th", null, "model"));
    g.methods.forEach(function (m) {
      head.appendChild(el("th", null, txt(m), el("div", { class: "metric-name" }, txt(g.metric[m] || ""))));
    });
    var body = el("tbody");
    g.models.forEach(function (model, i) {
      var tr = el("tr", null, el("th", { title: txt(model) }, txt(g.labels[i] || model)));
      g.methods.forEach(function (m, j) {
        var c = byCell[i + "/" + j];
        var td = el("td", { class: "cell" });
        if (!c) { td.appendChild(el("span", { class: "note" }, "not in this comparison")); tr.appendChild(td); return; }
        var value = txt(c.value);
        var cls = "value" + (value === "failed" || value === "no valid tests" ? " bad" : "") +
          (percentMetric(g.metric[m]) ? heat(value) : "");
        td.appendChild(c.run === null || c.run === undefined ? el("span", { class: cls }, value) :
          link(hashWith({ run: c.run }) , value, cls));
        var us = c.run === null || c.run === undefined ? [] : (unitsOf[c.run] || []);
        if (us.length) {
          var chips = el("div", { class: "chips" });
          us.slice(0, 12).forEach(function (u) { chips.appendChild(unitChip(u, true)); });
          if (us.length > 12) chips.appendChild(link(hashWith({ run: c.run }), "all " + us.length + " units"));
          td.appendChild(chips);
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    box.appendChild(el("div", { class: "scroll" }, el("table", { class: "grid comparison-matrix" }, el("thead", null, head), body)));
    box.appendChild(el("p", { class: "note" }, "each cell: the headline metric over the cell's problems, as tczoo report " +
      "prints it ('failed': every generation failed; '(k/n failed)': failed generations are left out of the number), " +
      "then one link per unit (problem)"));
    (g.tables || []).slice(1).forEach(function (tb) {
      if (tb.title.indexOf("by model × method") >= 0) box.appendChild(reportTable(tb));
    });
    var forest = gridForest(g);
    if (forest) box.appendChild(forest);
    var cost = (g.tables || []).filter(function (tb) { return tb.title === "cost and time per cell"; });
    if (cost.length) box.appendChild(el("details", null, el("summary", null, "cost and time per cell"), reportTable(cost[0])));
    return box;
  }

  // The forest plot of a comparison: one row per model x method with a headline number,
  // the point and its 95% interval on one axis, the problems it rests on at the right.
  // Built as SVG elements (createElementNS, text nodes only), like the rest of the page.
  function svgEl(tag, attrs, text) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) node.setAttribute(k, String(attrs[k]));
    }
    if (text !== undefined) node.appendChild(document.createTextNode(text));
    return node;
  }

  function gridForest(g) {
    var rows = g.cells.filter(function (c) {
      return typeof c.number === "number" && typeof c.low === "number" && typeof c.high === "number";
    });
    if (!rows.length) return null;
    var lo = Math.min.apply(null, rows.map(function (c) { return c.low; }));
    var hi = Math.max.apply(null, rows.map(function (c) { return c.high; }));
    if (lo >= 0 && hi <= 100 && hi > 1) { lo = 0; hi = 100; }
    if (hi === lo) { hi = lo + 1; }
    var left = 260, width = 420, right = 70, step = 26, top = 24;
    var height = top + step * rows.length + 30;
    var x = function (v) { return left + (v - lo) / (hi - lo) * width; };
    var svg = svgEl("svg", { class: "forest", width: left + width + right, height: height,
                             viewBox: "0 0 " + (left + width + right) + " " + height, role: "img" });
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      var v = lo + f * (hi - lo);
      svg.appendChild(svgEl("line", { x1: x(v), x2: x(v), y1: top - 6, y2: height - 24, class: "forest-grid" }));
      svg.appendChild(svgEl("text", { x: x(v), y: height - 8, "text-anchor": "middle", class: "forest-tick" },
        (Math.round(v * 10) / 10).toString()));
    });
    rows.forEach(function (c, i) {
      var y = top + i * step + step / 2;
      var name = txt(g.methods[c.method]) + " (" + txt(g.labels[c.model] || g.models[c.model]) + ")";
      var row = svgEl("g", { class: "forest-row" });
      row.appendChild(svgEl("title", {}, name + ", " + txt(g.metric[g.methods[c.method]]) + ": " + txt(c.value)));
      row.appendChild(svgEl("text", { x: left - 8, y: y + 4, "text-anchor": "end", class: "forest-label" }, name));
      row.appendChild(svgEl("line", { x1: x(c.low), x2: x(c.high), y1: y, y2: y, class: "forest-ci" }));
      row.appendChild(svgEl("circle", { cx: x(c.number), cy: y, r: 4, class: "forest-point" }));
      row.appendChild(svgEl("text", { x: left + width + 8, y: y + 4, class: "forest-n" }, "n=" + c.problems));
      svg.appendChild(row);
    });
    var box = el("div", { class: "forest-box" });
    box.appendChild(el("h3", null, "Forest plot: each cell's headline with its 95% interval"));
    box.appendChild(svg);
    box.appendChild(el("p", { class: "note" }, "a point per model × method with an interval (cells that failed, have " +
      "no valid test or rest on one problem have none); n: the problems it rests on"));
    return box;
  }

  function runCard(r, i) {
    var c = r.config || {}, t = r.totals || {};
    var card = el("div", { class: "run card" });
    card.appendChild(el("h2", null, link("#/r/" + i, txt(r.name))));
    card.appendChild(el("div", { class: "meta" },
      el("span", null, "model ", el("b", null, txt(c.model))), " · ",
      el("span", null, "benchmark ", el("b", null, txt(c.benchmark))), " · ",
      el("span", null, "methods ", el("b", null, (c.methods || []).map(txt).join(", ")))));
    card.appendChild(el("div", { class: "totals" },
      t.units + " units on " + t.problems + " problems · " + t.calls + " calls (" + t.cached_calls + " cached, " +
      t.failed_calls + " failed) · " + (t.prompt_tokens + t.completion_tokens) + " tokens · " + money(t.cost !== undefined ? t.cost : t.cost_usd) +
      " · " + num(t.generation_seconds, 1) + " s generating"));
    if ((r.failures || []).length) {
      var f = el("div", { class: "failures" }, el("b", null, "failures: "));
      r.failures.slice(0, 8).forEach(function (x) {
        f.appendChild(link(hashWith({ run: i, reason: txt(x.stage) + ":" + txt(x.reason) }),
          txt(x.stage) + ":" + txt(x.reason) + " ×" + x.count, "badge bad"));
      });
      if (r.failures.length > 8) f.appendChild(link("#/r/" + i, "… all " + r.failures.length));
      card.appendChild(f);
    } else card.appendChild(el("div", { class: "failures ok" }, "no failures recorded"));
    (r.tables || []).forEach(function (tb) { card.appendChild(reportTable(tb)); });
    if (r.table_error) card.appendChild(el("p", { class: "error" }, txt(r.table_error)));
    else if (!(r.tables || []).length) card.appendChild(el("p", { class: "note" }, "no scores in this run yet"));
    if ((r.plots || []).length) card.appendChild(plots(r.plots));
    return card;
  }

  // Text columns left, numbers right (as tczoo report aligns them): a column is a number
  // column when every cell that is not empty or a status word starts with a number.
  var STATUS = { "": 1, failed: 1, "no valid tests": 1, "not run": 1, "not scored": 1, nan: 1 };
  function numericColumn(rows, j) {
    var any = false;
    for (var i = 0; i < rows.length; i++) {
      var v = txt(rows[i][j]).trim();
      if (STATUS[v]) continue;
      if (!/^[-+]?(\d|\.\d|\$)/.test(v)) return false;
      any = true;
    }
    return any;
  }

  function reportTable(tb) {
    var box = el("div", { class: "report" });
    box.appendChild(el("h3", null, txt(tb.title)));
    var numeric = tb.columns.map(function (c, j) { return numericColumn(tb.rows, j); });
    var pct = tb.columns.map(function (c) { return percentMetric(c); });
    box.appendChild(table(tb.columns.map(txt), tb.rows.map(function (row) {
      return el("tr", null, row.map(function (c, j) {
        return el("td", { class: (numeric[j] ? "num" : "left") + (numeric[j] && pct[j] ? heat(c) : "") }, txt(c));
      }));
    }), "grid report-table"));
    (tb.notes || []).forEach(function (n) { box.appendChild(el("p", { class: "note" }, txt(n))); });
    return box;
  }

  function plots(list, label) {
    var box = el("div", { class: "plots" });
    list.forEach(function (p) {
      if (p.file) box.appendChild(el("figure", null, el("img", { src: p.file, alt: txt(p.title) }),
        el("figcaption", null, txt(p.title) + (label ? " (" + label + ")" : ""))));
      else box.appendChild(el("p", { class: "note" }, txt(p.title) + ": not drawn (" + txt(p.error) + ")"));
    });
    return box;
  }

  // The problem x (run, method) grid with filters and pages.
  function explorer(q) {
    var box = section("Problems × methods", "problems");
    var methods = [], reasons = {}, seen = {};
    INDEX.units.forEach(function (u) {
      var key = u.r + "\u0000" + u.method;
      if (!seen[key]) { seen[key] = 1; methods.push([u.r, u.method]); }
      u.reasons.forEach(function (x) { reasons[x] = (reasons[x] || 0) + 1; });
    });
    var form = el("form", { class: "filters", onsubmit: function (e) { e.preventDefault(); } });
    function setQ(k, v) { var n = Object.assign({}, q); n[k] = v; delete n.page; location.hash = hashWith(n); }
    var search = el("input", { type: "search", placeholder: "problem id contains…", value: q.q || "", "aria-label": "problem filter" });
    search.addEventListener("change", function () { setQ("q", search.value); });
    form.appendChild(search);
    var msel = el("select", { "aria-label": "method filter" }, el("option", { value: "" }, "all methods"));
    Array.from(new Set(methods.map(function (m) { return m[1]; }))).sort().forEach(function (m) {
      var o = el("option", { value: m }, m); if (q.method === m) o.selected = true; msel.appendChild(o);
    });
    msel.addEventListener("change", function () { setQ("method", msel.value); });
    form.appendChild(msel);
    if (INDEX.runs.length > 1) {
      var rsel = el("select", { "aria-label": "run filter" }, el("option", { value: "" }, "all runs"));
      INDEX.runs.forEach(function (r, i) { var o = el("option", { value: String(i) }, txt(r.name)); if (q.run === String(i)) o.selected = true; rsel.appendChild(o); });
      rsel.addEventListener("change", function () { setQ("run", rsel.value); });
      form.appendChild(rsel);
    }
    var fsel = el("select", { "aria-label": "failure filter" }, el("option", { value: "" }, "any outcome"),
      el("option", { value: "*" }, "with any failure"));
    Object.keys(reasons).sort().forEach(function (x) {
      var o = el("option", { value: x }, x + " (" + reasons[x] + ")"); if (q.reason === x) o.selected = true; fsel.appendChild(o);
    });
    if (q.reason === "*") fsel.value = "*";
    fsel.addEventListener("change", function () { setQ("reason", fsel.value); });
    form.appendChild(fsel);
    box.appendChild(form);

    var needle = (q.q || "").toLowerCase();
    var units = INDEX.units.filter(function (u) {
      if (q.method && u.method !== q.method) return false;
      if (q.run !== undefined && q.run !== "" && String(u.r) !== q.run) return false;
      if (q.reason === "*" && !u.failures) return false;
      if (q.reason && q.reason !== "*" && u.reasons.indexOf(q.reason) < 0) return false;
      if (needle && txt(INDEX.problems[u.p]).toLowerCase().indexOf(needle) < 0) return false;
      return true;
    });
    var cols = methods.filter(function (m) {
      return (!q.method || m[1] === q.method) && (q.run === undefined || q.run === "" || String(m[0]) === q.run);
    });
    var byProblem = {};
    var order = [];
    units.forEach(function (u) {
      if (!byProblem[u.p]) { byProblem[u.p] = {}; order.push(u.p); }
      var key = u.r + "\u0000" + u.method;
      (byProblem[u.p][key] = byProblem[u.p][key] || []).push(u);
    });
    var page = Math.max(0, (+q.page || 1) - 1), pages = Math.max(1, Math.ceil(order.length / PAGE));
    page = Math.min(page, pages - 1);
    box.appendChild(el("p", { class: "count" }, order.length + " problems, " + units.length + " units match" +
      (pages > 1 ? " · page " + (page + 1) + " of " + pages : "")));
    var head = [el("th", null, "problem")].concat(cols.map(function (m) {
      var name = txt(INDEX.runs[m[0]].name), method = txt(m[1]);
      var same = name === method || name.slice(-(method.length + 3)) === " · " + method;
      return el("th", null, INDEX.runs.length > 1 ? (same ? name : name + " · " + method) : method);
    }));
    var t = el("table", { class: "grid matrix-grid" }, el("thead", null, el("tr", null, head)));
    var body = el("tbody");
    order.slice(page * PAGE, (page + 1) * PAGE).forEach(function (p) {
      var tr = el("tr", null, el("th", null, link("#/p/" + p, txt(INDEX.problems[p]))));
      cols.forEach(function (m) {
        var us = byProblem[p][m[0] + "\u0000" + m[1]] || [];
        tr.appendChild(el("td", null, us.map(unitChip)));
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    box.appendChild(t);
    if (pages > 1) {
      var pager = el("div", { class: "pager" });
      for (var i = 1; i <= pages; i++) {
        var n = Object.assign({}, q); n.page = String(i);
        pager.appendChild(i === page + 1 ? el("b", null, String(i)) : link(hashWith(n), String(i)));
      }
      box.appendChild(pager);
    }
    return box;
  }

  // One unit as a link to its page. A unit whose generation failed (the model did not
  // answer, the method crashed, no test and a reason) says "failed" with the reason; a
  // unit that ran and made no test says "no tests": the two are never alike.
  function unitChip(u, withProblem) {
    var label = (withProblem ? txt(INDEX.problems[u.p]).split("-")[0] + " " : "") + (u.task ? txt(u.task) + " " : "");
    var cls = "chip";
    if (!u.generated || u.crashed) { cls += " bad"; label += u.crashed ? "crashed" : "not generated"; }
    else if (u.failed) { cls += " bad failed"; label += "failed (" + txt(u.failed) + ")"; }
    else if (u.tests === 0) { cls += " empty"; label += "no tests"; }
    else if (u.valid === 0) { cls += " bad"; label += "0 valid"; }
    else if (u.value !== null && u.value !== undefined) {
      label += short(u.headline) + " " + num(u.value, 1);
      if (percentMetric(u.headline)) cls += heat(u.value);
    }
    else label += u.tests + " tests";
    if (u.failures && cls.indexOf("bad") < 0) { cls += " warn"; label += " · " + u.failures + "✗"; }
    return link("#/u/" + u.r + "/" + u.p + "/" + u.u, label, cls);
  }

  function short(name) {
    var m = { hack_rate: "HR", pass_rate: "PR", tbr: "TBR", gi: "GI", itr: "ITR" };
    return m[name] || txt(name);
  }

  // ------------------------------------------------------------------ run page

  function runPage(i) {
    var r = INDEX.runs[i];
    if (!r) throw new Error("no run " + i);
    var root = el("div", { class: "page run" });
    root.appendChild(el("h1", null, "Run " + txt(r.name)));
    root.appendChild(el("p", { class: "path" }, txt(r.path)));
    var s = section("Totals", "totals");
    s.appendChild(kv(r.totals));
    root.appendChild(s);
    s = section("Failures by stage and reason", "failures");
    if ((r.failures || []).length) {
      s.appendChild(table(["stage", "reason", "count", "units", ""], r.failures.map(function (f) {
        return [txt(f.stage), txt(f.reason), String(f.count), String(f.units),
          link(hashWith({ run: i, reason: txt(f.stage) + ":" + txt(f.reason) }), "show units")];
      })));
    } else s.appendChild(el("p", null, "no failures recorded"));
    root.appendChild(s);
    s = section("Tables (as tczoo report prints them)", "tables");
    (r.tables || []).forEach(function (tb) { s.appendChild(reportTable(tb)); });
    if ((r.plots || []).length) s.appendChild(plots(r.plots));
    root.appendChild(s);
    s = section("Provenance", "provenance");
    s.appendChild(kv(r.provenance));
    root.appendChild(s);
    s = section("Configuration (config.json)", "config");
    s.appendChild(kv(r.config));
    root.appendChild(s);
    return root;
  }

  // ------------------------------------------------------------------ problem page

  function pending(promise, render) {
    var box = el("div", { class: "page" }, el("p", { class: "loading" }, "loading…"));
    promise.then(function (data) { box.textContent = ""; box.appendChild(render(data)); })
      .catch(function (e) { box.textContent = ""; box.appendChild(el("p", { class: "error" }, e.message)); });
    return box;
  }

  function problemPage(p) {
    var runs = [];
    INDEX.units.forEach(function (u) { if (u.p === p && runs.indexOf(u.r) < 0) runs.push(u.r); });
    return pending(Promise.all(runs.map(function (r) { return loadChunk("r" + r + "/p" + p); })), function (list) {
      var root = el("div", { class: "problem" });
      root.appendChild(el("h1", null, "Problem " + txt(INDEX.problems[p])));
      list.forEach(function (chunk, k) {
        var r = runs[k];
        var s = section("Run " + txt(INDEX.runs[r].name), "run" + r);
        s.appendChild(table(["method", "task", "tests", "valid", "headline", "failures", "LLM calls", "tokens", "cost", "seconds"],
          chunk.units.map(function (unit, ui) {
            var l = unit.line;
            return el("tr", { class: l.failures ? "has-failures" : "" },
              el("td", null, link("#/u/" + r + "/" + p + "/" + ui, txt(l.method))), el("td", null, txt(l.task)),
              el("td", null, num(l.tests)), el("td", null, num(l.valid)),
              el("td", null, l.value !== null ? short(l.headline) + " " + num(l.value, 1) : ""),
              el("td", null, l.failures ? l.reasons.join(", ") : ""), el("td", null, String(l.exchanges)),
              el("td", null, String(l.tokens)), el("td", null, money(l.cost)), el("td", null, num(l.seconds)));
          })));
        root.appendChild(s);
      });
      return root;
    });
  }

  // ------------------------------------------------------------------ unit page

  function unitPage(r, p, ui) {
    return pending(loadChunk("r" + r + "/p" + p), function (chunk) {
      var unit = chunk.units[ui];
      if (!unit) throw new Error("no such unit");
      var l = unit.line;
      var root = el("div", { class: "unit" });
      root.appendChild(el("div", { class: "crumbs" }, link("#/", "summary"), " / ", link("#/r/" + r, txt(INDEX.runs[r].name)),
        " / ", link("#/p/" + p, txt(INDEX.problems[p]))));
      root.appendChild(el("h1", null, txt(l.method) + " on " + txt(INDEX.problems[p]) + (l.task ? " [" + txt(l.task) + "]" : "")));
      var tests = unit.tests || [], arts = unit.artifacts || [], xs = unit.exchanges || [], fs = unit.failures || [];
      var rounds = unit.rounds || [];
      root.appendChild(el("nav", { class: "toc" },
        jump("metrics", "metrics"), " · ",
        jump("exchanges", "LLM exchanges (" + xs.length + ")"), " · ", jump("failures", "failures (" + fs.length + ")"), " · ",
        rounds.length ? [jump("rounds", "agent rounds (" + rounds.length + ")"), " · "] : "",
        jump("verdicts", "verdicts"), " · ", jump("tests", "tests (" + tests.length + ")"), " · ",
        jump("artifacts", "artifacts (" + arts.length + ")")));
      root.appendChild(el("p", { class: "meta" }, "model " + txt(l.model) + " · " + num(unit.seconds, 2) + " s · " +
        l.exchanges + " LLM calls · " + l.tokens + " tokens · " + money(l.cost)));
      if (unit.error) root.appendChild(el("div", { class: "error" }, el("b", null, "the method crashed: "), longText(unit.error)));

      var s = section("Metrics", "metrics");
      (unit.scores || []).forEach(function (sc) {
        s.appendChild(el("h3", null, "runner " + txt(sc.runner)));
        var names = Object.keys(sc.metrics || {});
        s.appendChild(el("div", { class: "scroll" }, table(names, [names.map(function (k) { return txt(sc.metrics[k]); })], "grid metrics")));
        if (sc.note) s.appendChild(el("p", { class: "note" }, txt(sc.note)));
        var d = el("details", null, el("summary", null, "score detail"), kv(sc.detail));
        s.appendChild(d);
      });
      if (!(unit.scores || []).length) s.appendChild(el("p", { class: "note" }, "not scored"));
      root.appendChild(s);

      s = section("LLM exchanges", "exchanges");
      if (xs.length) {
        s.appendChild(table(["#", "status", "prompt → answer tokens", "cost", "latency", "answer starts"], xs.map(function (x, k) {
          var status = x.ok ? (x.cached ? "cached" : "ok") : "failed: " + txt(x.reason);
          return el("tr", { class: x.ok ? "" : "has-failures" },
            el("td", null, link("#/x/" + r + "/" + p + "/" + ui + "/" + k, "exchange " + (k + 1), "xlink")),
            el("td", null, el("span", { class: "badge " + (x.ok ? (x.cached ? "" : "good") : "bad") }, status)),
            el("td", null, x.prompt_tokens + " → " + x.completion_tokens), el("td", null, money(x.cost)),
            el("td", null, x.seconds === null || x.seconds === undefined ? "" : num(x.seconds, 2) + " s"),
            el("td", { class: "preview" }, txt(x.answer).slice(0, 120)));
        })));
      } else s.appendChild(el("p", { class: "note" }, "no LLM exchange recorded for this unit"));
      root.appendChild(s);

      s = section("Failures", "failures");
      if (fs.length) s.appendChild(failureTable(fs));
      else s.appendChild(el("p", { class: "note" }, "none recorded"));
      root.appendChild(s);

      if (rounds.length) root.appendChild(roundsSection(rounds, "#/x/" + r + "/" + p + "/" + ui + "/"));

      s = section("Verdicts per test", "verdicts");
      var any = false;
      (unit.scores || []).forEach(function (sc) {
        (sc.matrices || []).forEach(function (m) { if (m.tests.length) { any = true; s.appendChild(matrix(m)); } });
      });
      if (!any) s.appendChild(el("p", { class: "note" }, "the runner recorded no per-test verdicts for this unit"));
      root.appendChild(s);

      s = section("Generated tests", "tests");
      if (unit.oracle) s.appendChild(el("p", { class: "meta" }, "oracle: " + txt(unit.oracle.kind)));
      if (unit.oracle && unit.oracle.program) s.appendChild(program(unit.oracle.program, "oracle program"));
      var validity = validityOf(unit);
      if (tests.length) {
        s.appendChild(table(["#", "origin", "input", "expected output", "validity"], tests.map(function (t, k) {
          var v = validity[k];
          return el("tr", { id: "test-" + k },
            el("td", null, "t" + k), el("td", null, txt(t.origin)), el("td", null, longText(t.input, { lines: 6, chars: 600, keepEmpty: true })),
            el("td", null, t.output === null ? el("span", { class: "note" }, "(from the oracle)") : longText(t.output, { lines: 6, chars: 600, keepEmpty: true })),
            el("td", null, v ? [cellBadge(v[0], v[1]), v[0] === "valid" ? "" : el("div", { class: "note" }, txt(v[1]))] : ""));
        }), "grid tests"));
      } else s.appendChild(el("p", { class: "error" }, "this unit produced no tests"));
      root.appendChild(s);

      s = section("Artifacts (programs the method wrote)", "artifacts");
      if (!arts.length) s.appendChild(el("p", { class: "note" }, "none"));
      arts.forEach(function (a) {
        var box = el("div", { class: "artifact card" });
        box.appendChild(el("h3", null, txt(a.role) + (a.program.name ? ": " + txt(a.program.name) : "") + " ",
          el("span", { class: "badge " + (a.ok ? "good" : "bad") }, a.ok ? "ran" : "failed")));
        box.appendChild(el("p", { class: "meta" }, (a.tests_made === null || a.tests_made === undefined ?
          "its tests are not told apart from its family's in this run" : "made " + a.tests_made + " of the tests") +
          (a.note ? " · " + txt(a.note) : "")));
        if (a.failures.length) box.appendChild(failureTable(a.failures));
        box.appendChild(program(a.program));
        if (a.generator) box.appendChild(el("details", null, el("summary", null, "how it is called"), kv(a.generator)));
        s.appendChild(box);
      });
      root.appendChild(s);
      if (unit.provenance) {
        s = section("Provenance", "provenance");
        s.appendChild(kv(unit.provenance));
        root.appendChild(s);
      }
      return root;
    });
  }

  // An agent's rounds: what each wrote, what running it showed, what changed.
  function roundsSection(rounds, exchangeBase) {
    var s = section("Agent rounds (" + rounds.length + ")", "rounds");
    s.appendChild(table(["#", "step", "action", "wrote", "changed", "outcome"], rounds.map(function (rd) {
      return el("tr", { class: /^clean/.test(txt(rd.outcome)) ? "" : "has-failures" },
        el("td", null, el("a", { href: "#", class: "rlink", "data-round": rd.round }, "round " + rd.round)),
        el("td", null, txt(rd.step)), el("td", null, txt(rd.action)),
        el("td", null, (rd.wrote || []).map(function (w) { return txt(w.name); }).join(", ")),
        el("td", null, (rd.changed || []).map(function (c) { return el("div", null, txt(c)); })),
        el("td", null, el("b", null, txt(rd.outcome))));
    }), "grid rounds"));
    s.querySelectorAll("a.rlink").forEach(function (a) {
      a.addEventListener("click", function (e) {
        e.preventDefault();
        var t = document.getElementById("round-" + a.getAttribute("data-round"));
        if (t) { t.open = true; t.scrollIntoView(); }
      });
    });
    rounds.forEach(function (rd) {
      var box = el("details", { class: "round card", id: "round-" + rd.round },
        el("summary", null, "round " + rd.round + " · " + txt(rd.step) + " · " + txt(rd.action) + " — " + txt(rd.outcome)));
      if ((rd.changed || []).length) {
        box.appendChild(el("h4", null, "what changed"));
        box.appendChild(el("ul", null, rd.changed.map(function (c) { return el("li", null, txt(c)); })));
      }
      var observed = rd.observed || {};
      if (Object.keys(observed).length) {
        box.appendChild(el("h4", null, "what it observed"));
        box.appendChild(kv(observed));
      }
      (rd.wrote || []).forEach(function (w) {
        var head = el("h4", null, "wrote " + txt(w.role) + ": " + txt(w.name) + " ",
          w.score !== null && w.score !== undefined ? el("span", { class: "badge" }, "score " + num(w.score, 3)) : "",
          " ", el("span", { class: "badge " + (w.selected ? "good" : "") }, w.selected ? "kept" : "not kept"));
        box.appendChild(head);
        if ((w.commands || []).length) box.appendChild(el("pre", { class: "text commands" }, w.commands.map(txt).join("\n")));
        box.appendChild(program({ name: w.name, language: "python", code: w.code, flags: null }));
      });
      if ((rd.exchanges || []).length) {
        box.appendChild(el("p", { class: "meta" }, "LLM exchanges: ", rd.exchanges.map(function (k, i) {
          return [i ? ", " : "", link(exchangeBase + k, "exchange " + (k + 1), "xlink")];
        })));
      }
      s.appendChild(box);
    });
    return s;
  }

  function jump(id, label) {
    var a = el("a", { href: "#" }, label);
    a.addEventListener("click", function (e) {
      e.preventDefault();
      var t = document.getElementById(id);
      if (t) t.scrollIntoView();
    });
    return a;
  }

  function validityOf(unit) {
    var out = {};
    (unit.scores || []).forEach(function (sc) {
      (sc.matrices || []).forEach(function (m) {
        m.rows.forEach(function (row) {
          if (row.label !== "validity") return;
          m.tests.forEach(function (t, j) { out[t] = row.cells[j]; });
        });
      });
    });
    return out;
  }

  function failureTable(fs) {
    return table(["stage", "reason", "item", "detail"], fs.map(function (f) {
      return el("tr", null, el("td", null, txt(f.stage)), el("td", null, el("b", null, txt(f.reason))), el("td", null, txt(f.item)),
        el("td", null, longText(f.detail, { lines: 4, chars: 400 })));
    }), "grid failures");
  }

  function program(p, label) {
    return el("div", { class: "program" },
      el("div", { class: "meta" }, (label ? label + " · " : "") + txt(p.language) + (p.flags ? " · flags " + txt(p.flags) : "")),
      longText(p.code, { lines: 30, chars: 4000, cls: "code" }));
  }

  var KNOWN = { AC: "ac", valid: "ac", no: "ac", WA: "wa", invalid: "wa", slow: "slow", tle: "tle", TLE: "tle",
    RE: "re", crash: "re", MLE: "re", OLE: "re", CE: "re", SE: "se", "-": "skip", "?": "unknown" };

  function cellBadge(code, note) {
    return el("span", { class: "v v-" + (KNOWN[txt(code)] || "other"), title: txt(note) }, txt(code));
  }

  function matrix(m) {
    var box = el("div", { class: "matrix" });
    box.appendChild(el("h3", null, txt(m.title)));
    var head = el("tr", null, el("th", null, ""));
    m.tests.forEach(function (t) {
      var a = el("a", { href: "#" }, "t" + t);
      a.addEventListener("click", function (e) {
        e.preventDefault();
        var row = document.getElementById("test-" + t);
        if (row) { row.scrollIntoView(); row.classList.add("flash"); }
      });
      head.appendChild(el("th", null, a));
    });
    var t = el("table", { class: "verdicts" }, el("thead", null, head));
    var body = el("tbody");
    m.rows.forEach(function (row) {
      var tr = el("tr", null, el("th", null, txt(row.label)));
      row.cells.forEach(function (c) { tr.appendChild(el("td", null, cellBadge(c[0], c[1]))); });
      body.appendChild(tr);
    });
    t.appendChild(body);
    box.appendChild(el("div", { class: "scroll" }, t));
    (m.notes || []).forEach(function (n) { box.appendChild(el("p", { class: "note" }, txt(n))); });
    return box;
  }

  // ------------------------------------------------------------------ one exchange

  function exchangePage(r, p, ui, k) {
    return pending(loadChunk("r" + r + "/p" + p), function (chunk) {
      var unit = chunk.units[ui];
      var x = unit && unit.exchanges[k];
      if (!x) throw new Error("no such exchange");
      var l = unit.line;
      var root = el("div", { class: "exchange" });
      var base = "#/x/" + r + "/" + p + "/" + ui + "/";
      root.appendChild(el("div", { class: "crumbs" }, link("#/", "summary"), " / ", link("#/p/" + p, txt(INDEX.problems[p])), " / ",
        link("#/u/" + r + "/" + p + "/" + ui, txt(l.method) + (l.task ? " [" + txt(l.task) + "]" : "")), " / exchange " + (k + 1) + " of " + unit.exchanges.length,
        k > 0 ? [" · ", link(base + (k - 1), "← previous")] : null,
        k + 1 < unit.exchanges.length ? [" · ", link(base + (k + 1), "next →")] : null));
      root.appendChild(el("h1", null, "LLM exchange " + (k + 1) + ": " + txt(l.method) + " on " + txt(INDEX.problems[p])));
      root.appendChild(kv({
        status: x.ok ? (x.cached ? "answered from the cache" : "answered") : "failed: " + txt(x.reason),
        model: x.model, sample: x.sample,
        tokens: x.prompt_tokens + " prompt → " + x.completion_tokens + " completion",
        cost: money(x.cost), latency: x.seconds === null || x.seconds === undefined ? "(not recorded)" : num(x.seconds, 3) + " s",
        time: x.time ? new Date(x.time * 1000).toISOString() : "", key: x.key
      }));
      if (x.error) root.appendChild(el("div", { class: "error" }, el("b", null, "error: "), longText(x.error)));
      var s = section("Prompt (" + x.messages.length + " messages)", "prompt");
      x.messages.forEach(function (m) {
        s.appendChild(el("div", { class: "message role-" + (/^[a-z]+$/.test(txt(m.role)) ? txt(m.role) : "other") },
          el("div", { class: "role" }, txt(m.role)), longText(m.content, { lines: 40, chars: 6000 })));
      });
      root.appendChild(s);
      s = section("Answer", "answer");
      s.appendChild(el("div", { class: "message role-assistant" }, el("div", { class: "role" }, "assistant"),
        longText(x.answer, { lines: 60, chars: 8000, keepEmpty: true })));
      root.appendChild(s);
      s = section("Parameters", "params");
      s.appendChild(kv({ asked: x.params, sent: x.sent, notes: x.notes }));
      root.appendChild(s);
      return root;
    });
  }
})();
