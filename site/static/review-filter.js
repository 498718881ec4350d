// wismo review page: filters kept in the URL fragment (#status=not_justified&case=…), so that a link
// reproduces the view, and the counters "12 of 41 conversations shown". The values each filter offers come
// from the page's data (claim-finding kinds included); the verdicts come from review.js (window.wismoReview).
// In blind review the design filter is hidden and ignored, since it would give the design away.
(function () {
  "use strict";
  const FIELDS = ["design", "run", "case", "result", "finding", "status", "q"];

  function parseHash() {
    const hash = window.location.hash.slice(1);
    // "#item-12" points at a text (links between conflicting verdicts); it sets no filter.
    if (!hash || /^item-\d+$/.test(hash)) return null;
    const params = new URLSearchParams(hash);
    const values = {};
    FIELDS.forEach(function (name) { values[name] = params.get(name) || ""; });
    return values;
  }

  function addOption(select, value, text) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = text;
    select.append(option);
  }

  document.addEventListener("wismo:review-ready", function () {
    const review = window.wismoReview;
    const data = review.data;
    const form = document.getElementById("review-filters");
    const counter = document.getElementById("filter-count");
    if (!form || !data) return;
    const field = function (name) { return form.elements.namedItem(name); };
    data.filters.designs.forEach(function (d) { addOption(field("design"), d, d); });
    data.filters.runs.forEach(function (r) { addOption(field("run"), r.id, r.label + " · " + r.id); });
    data.filters.cases.forEach(function (c) { addOption(field("case"), c, c); });
    data.filters.kinds.forEach(function (k) { addOption(field("finding"), k, k); });
    if (data.filters.runs.length < 2) field("run").closest("label").hidden = true;

    function setValues(values) {
      FIELDS.forEach(function (name) {
        const control = field(name);
        const value = values ? values[name] : "";
        // A value from a link that this site does not offer is kept, so the view says what it filters on.
        if (control.tagName === "SELECT" && value && !Array.from(control.options).some(function (o) {
          return o.value === value;
        })) addOption(control, value, value + " (not on this site)");
        control.value = value;
      });
    }

    function values() {
      const out = {};
      FIELDS.forEach(function (name) { out[name] = field(name).value.trim(); });
      return out;
    }

    function fragment(current) {
      const params = new URLSearchParams();
      FIELDS.forEach(function (name) { if (current[name]) params.set(name, current[name]); });
      const text = params.toString();
      return text ? "#" + text : "";
    }

    function keepInLinks(hash) {
      document.querySelectorAll("a[data-keep-filters]").forEach(function (link) {
        link.href = link.getAttribute("href").split("#")[0] + hash;
      });
    }

    function writeHash() {
      const hash = fragment(values());
      const url = window.location.href.split("#")[0] + hash;
      try {
        window.history.replaceState(null, "", url);
      } catch (error) {
        window.location.replace(hash || "#");
      }
      keepInLinks(hash);
    }

    function statusMatches(wanted, state) {
      if (!wanted) return true;
      if (wanted === "unreviewed") return state.reviewed < state.total || state.conflict;
      if (wanted === "reviewed") return state.reviewed === state.total && !state.conflict;
      if (wanted === "conflict") return state.conflict || state.siblings.length > 0;
      if (wanted === "imported") return state.imported > 0;
      return (state.verdicts[wanted] || 0) > 0;
    }

    function findingMatches(wanted, kinds) {
      if (!wanted) return true;
      if (wanted === "any") return kinds.length > 0;
      if (wanted === "none") return kinds.length === 0;
      return kinds.includes(wanted);
    }

    // How many of a text's conversations the filters keep (0 hides the text).
    function shown(group, current, blind) {
      const item = group.item;
      if (current.case && item.caseId !== current.case) return 0;
      if (current.run && item.runId !== current.run) return 0;
      if (!findingMatches(current.finding, item.kinds)) return 0;
      const state = review.state(group);
      if (!statusMatches(current.status, state)) return 0;
      if (current.q) {
        const text = (item.summary + " " + item.caseId + " " + state.notes.join(" ")).toLowerCase();
        if (!current.q.toLowerCase().split(/\s+/).every(function (word) { return text.includes(word); })) return 0;
      }
      return group.members.filter(function (member) {
        return (blind || !current.design || member.design === current.design) &&
          (!current.result || (current.result === "passed") === member.passed);
      }).length;
    }

    function apply() {
      const current = values();
      const blind = review.blind();
      let texts = 0;
      let conversations = 0;
      let total = 0;
      review.groups.forEach(function (group) {
        const count = shown(group, current, blind);
        group.article.classList.toggle("hidden-by-filter", count === 0);
        texts += count > 0 ? 1 : 0;
        conversations += count;
        total += group.members.length;
      });
      const filtered = FIELDS.some(function (name) { return current[name] && !(blind && name === "design"); });
      if (counter) {
        counter.textContent = (filtered ? conversations + " of " + total + " conversations shown (" + texts +
          " of " + review.groups.length + " texts)" : "All " + review.groups.length + " texts shown (" + total +
          " conversations)") + (data.pages > 1 ? " on page " + data.page + " of " + data.pages +
          "; the filters apply to every page" : "") + ".";
      }
    }

    setValues(parseHash());
    keepInLinks(fragment(values()));
    form.addEventListener("input", function () { writeHash(); apply(); });
    form.addEventListener("change", function () { writeHash(); apply(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function (event) {
      event.preventDefault();
      setValues(null);
      writeHash();
      apply();
    });
    window.addEventListener("hashchange", function () {
      const fromLink = parseHash();
      if (fromLink) { setValues(fromLink); keepInLinks(fragment(values())); apply(); }
    });
    document.addEventListener("wismo:review-change", apply);
    document.addEventListener("keydown", function (event) {
      const nav = window.wismoNav;
      if (event.key !== "/" || !nav || event.ctrlKey || event.metaKey || event.altKey || nav.typing(event.target)) {
        return;
      }
      field("q").focus();
      event.preventDefault();
    });
    apply();
  });
})();
