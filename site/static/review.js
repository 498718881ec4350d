// wismo review page: one verdict per text (stored for every conversation it stands for), imported reviews,
// blind review, keyboard keys, export as JSON or CSV. A review's key binds it to one summary text:
// key = sha256("wismo-review-v1\0" + runId + "\0" + conversationId + "\0" + sha256(summary)), the same
// function as wismo/sitegen/reviews.py, so a changed summary never inherits an old verdict. Summaries are
// read from the inlined JSON with JSON.parse and only ever written back with textContent.
// review-filter.js reads the state this script exposes (window.wismoReview) to filter the texts.
(function () {
  "use strict";
  const STORE = "wismo.review.v1:";
  const BLIND = "wismo.review.blind";
  const REVIEWER = "wismo.review.reviewer";
  const ADVANCE = "wismo.review.advance";
  const LABELS = { justified: "justified", not_justified: "not justified", unsure: "unsure" };
  const FIELDS = ["key", "runId", "conversationId", "caseId", "design", "summarySha", "verdict", "note", "reviewer",
    "reviewedAt"];

  function hex(bytes) {
    return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  // SHA-256 in plain JS, for pages served from an insecure origin where crypto.subtle is absent.
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
  function sha256Plain(bytes) {
    const length = bytes.length;
    const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(bytes);
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length << 3) >>> 0);
    const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    const w = new Uint32Array(64);
    const rotr = function (x, n) { return (x >>> n) | (x << (32 - n)); };
    for (let offset = 0; offset < padded.length; offset += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + 4 * i);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      const add = [a, b, c, d, e, f, g, hh];
      for (let i = 0; i < 8; i++) h[i] = (h[i] + add[i]) >>> 0;
    }
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]);
    return hex(out);
  }

  async function sha256(text) {
    const bytes = new TextEncoder().encode(text); // lone surrogates become U+FFFD, as in reviews.py
    if (window.crypto && window.crypto.subtle) {
      return hex(new Uint8Array(await window.crypto.subtle.digest("SHA-256", bytes)));
    }
    return sha256Plain(bytes);
  }

  async function reviewKey(prefix, runId, conversationId, summary) {
    const summarySha = await sha256(summary);
    const key = await sha256([prefix, runId, conversationId, summarySha].join("\u0000"));
    return { key: key, summarySha: summarySha };
  }

  function readStored(key) {
    try { return JSON.parse(localStorage.getItem(STORE + key) || "null"); } catch (e) { return null; }
  }

  function storedReviews(runs) {
    const found = [];
    for (let i = 0; i < localStorage.length; i++) {
      const name = localStorage.key(i);
      if (!name || !name.startsWith(STORE)) continue;
      const entry = readStored(name.slice(STORE.length));
      if (entry && runs.includes(entry.runId)) found.push(entry);
    }
    return found;
  }

  // Reviews folded into this build (wismo build-site --reviews): shown, pre-filled, and exported again.
  const imported = new Map();
  const importedDocument = window.wismoImportedReviews || { files: [], entries: [] };
  importedDocument.entries.forEach(function (entry) { imported.set(entry.key, entry); });

  // An entry as the export writes it (version 2), whatever older code stored.
  function exported(entry) {
    const out = {};
    FIELDS.forEach(function (name) {
      out[name] = entry[name] === undefined ? (name === "verdict" ? null : "") : entry[name];
    });
    out.verdict = out.verdict || null;
    return out;
  }

  // The review in force for one conversation: the newer of this browser's and the imported one.
  function effective(key) {
    const local = readStored(key);
    const other = imported.get(key);
    if (local && (!other || local.reviewedAt >= other.reviewedAt)) {
      return local.verdict || local.note ? { entry: local, imported: false } : null;
    }
    return other ? { entry: other, imported: true } : null;
  }

  function verdictsOf(keys) {
    const counts = {};
    keys.forEach(function (key) {
      const found = effective(key);
      if (found && found.entry.verdict) counts[found.entry.verdict] = (counts[found.entry.verdict] || 0) + 1;
    });
    return counts;
  }

  function describe(counts) {
    return Object.keys(counts).sort().map(function (v) { return LABELS[v] + " (" + counts[v] + ")"; }).join(", ");
  }

  // Everything the page shows about one text: its verdict(s), notes, whether imported, conflicts.
  function groupState(group) {
    const verdicts = {};
    const notes = [];
    let reviewed = 0;
    let importedCount = 0;
    group.members.forEach(function (member) {
      const found = effective(member.key);
      member.review = found;
      if (!found) return;
      const entry = found.entry;
      if (entry.verdict) { verdicts[entry.verdict] = (verdicts[entry.verdict] || 0) + 1; reviewed += 1; }
      if (entry.note && !notes.includes(entry.note)) notes.push(entry.note);
      if (found.imported) importedCount += 1;
    });
    const kinds = Object.keys(verdicts);
    const siblings = (group.item.siblings || []).map(function (sibling) {
      return { sibling: sibling, verdicts: verdictsOf(sibling.keys) };
    }).filter(function (s) {
      const all = Object.keys(Object.assign({}, verdicts, s.verdicts));
      return kinds.length && Object.keys(s.verdicts).length && all.length > 1;
    });
    return { verdicts: verdicts, verdict: kinds.length === 1 ? kinds[0] : null, reviewed: reviewed,
      total: group.members.length, conflict: kinds.length > 1, siblings: siblings, notes: notes,
      imported: importedCount };
  }

  const api = { reviewKey: reviewKey, sha256: sha256, groups: [], state: groupState, data: null,
    blind: function () { return document.body.classList.contains("blind"); },
    sha256Plain: function (text) { return sha256Plain(new TextEncoder().encode(text)); } };
  window.wismoReview = api;  // also read by the browser tests, which compare the keys with Python's

  function changed() { document.dispatchEvent(new CustomEvent("wismo:review-change")); }

  document.addEventListener("DOMContentLoaded", async function () {
    const dataElement = document.getElementById("review-data");
    if (!dataElement) return;
    const data = JSON.parse(dataElement.textContent);
    api.data = data;
    const progress = document.getElementById("review-progress");
    const blind = document.getElementById("blind-toggle");
    const advance = document.getElementById("advance-toggle");
    const reviewer = document.getElementById("reviewer-name");
    const exportStatus = document.getElementById("export-status");
    const toolbar = document.getElementById("review-toolbar");
    const groups = new Map(); // index -> {item, article, members: [{...member, key, summarySha}]}

    // Items scrolled to (j/k, links) stop below the sticky toolbar, however tall it wraps.
    function measureToolbar() {
      if (toolbar) document.documentElement.style.setProperty("--sticky-height", toolbar.offsetHeight + "px");
    }
    measureToolbar();
    if (toolbar && window.ResizeObserver) new ResizeObserver(measureToolbar).observe(toolbar);

    function render(group) {
      const state = groupState(group);
      const article = group.article;
      article.dataset.verdict = state.conflict ? "conflict" : (state.verdict || "");
      article.dataset.imported = state.imported ? "true" : "false";
      article.querySelectorAll('input[type="radio"]').forEach(function (radio) {
        radio.checked = !state.conflict && state.verdict === radio.value;
      });
      const note = article.querySelector("textarea");
      if (note && document.activeElement !== note) note.value = state.notes.join("\n\n");
      const saved = article.querySelector(".verdict-saved");
      const all = state.total > 1 ? " for all " + state.total + " conversations" : "";
      let text = "";
      if (state.conflict) {
        text = "Verdicts differ: " + describe(state.verdicts) + ". A verdict given here applies to all " +
          state.total + " conversations.";
      } else if (state.verdict && state.reviewed < state.total) {
        text = LABELS[state.verdict] + " for " + state.reviewed + " of " + state.total +
          " conversations; a verdict given here applies to all of them.";
      } else if (state.verdict) {
        text = (state.imported === state.total ? "Imported: " : "Saved: ") + LABELS[state.verdict] + all + ".";
      } else if (state.notes.length) {
        text = (state.imported ? "Imported note" : "Note saved") + "; no verdict yet.";
      }
      if (saved) saved.textContent = text;
      const conflict = article.querySelector(".conflict");
      if (conflict) {
        conflict.textContent = "";
        if (state.conflict) {
          conflict.append("Conflicting verdicts for this text: " + describe(state.verdicts) + ".");
        }
        state.siblings.forEach(function (s) {
          const link = document.createElement("a");
          const onPage = s.sibling.url === (data.page === 1 ? "review.html" : "review-" + data.page + ".html");
          link.href = (onPage ? "" : s.sibling.url) + "#item-" + s.sibling.index;
          link.textContent = "text " + s.sibling.number;
          conflict.append((conflict.textContent ? " " : "") + "The same summary, with other evidence, was judged " +
            describe(s.verdicts) + " in ", link, ".");
        });
        conflict.hidden = !conflict.textContent;
      }
      return state;
    }

    function refresh() {
      let reviewed = 0;
      let conversations = 0;
      let done = 0;
      groups.forEach(function (group) {
        const state = render(group);
        if (state.reviewed === state.total && !state.conflict) done += 1;
        reviewed += state.reviewed;
        conversations += state.total;
      });
      if (progress) {
        progress.textContent = done + " of " + groups.size + " texts reviewed (" + reviewed + " of " +
          conversations + " conversations)" + (data.pages > 1 ? " on this page" : "");
      }
      changed();
    }

    function record(group, member, verdict, note, at) {
      return { key: member.key, runId: group.item.runId, conversationId: member.conversationId,
        caseId: group.item.caseId, design: member.design, summarySha: member.summarySha, verdict: verdict,
        note: note, reviewer: reviewer ? reviewer.value.trim() : "", reviewedAt: at };
    }

    // A verdict or note given to a text is stored for every conversation it stands for.
    function save(group, verdict, note) {
      const at = new Date().toISOString();
      group.members.forEach(function (member) {
        const current = effective(member.key);
        const entry = current ? current.entry : {};
        const v = verdict === undefined ? (entry.verdict || null) : verdict;
        const n = note === undefined ? (entry.note || "") : note;
        if (!v && !n && !imported.has(member.key)) {
          localStorage.removeItem(STORE + member.key);
        } else {
          // Clearing an imported review stores an empty one, newer than the import, so it stays cleared.
          localStorage.setItem(STORE + member.key, JSON.stringify(record(group, member, v, n, at)));
        }
      });
      refresh();
    }

    for (const item of data.items) {
      const article = document.querySelector('[data-review-index="' + item.index + '"]');
      if (!article) continue;
      const members = [];
      for (const member of item.members) {
        const keys = await reviewKey(data.keyPrefix, item.runId, member.conversationId, item.summary);
        members.push(Object.assign({}, member, { key: keys.key, summarySha: keys.summarySha }));
      }
      const group = { item: item, article: article, members: members };
      groups.set(String(item.index), group);
      api.groups.push(group);
      article.querySelectorAll('input[type="radio"]').forEach(function (radio) {
        radio.addEventListener("change", function () { save(group, radio.value); });
      });
      const note = article.querySelector("textarea");
      if (note) note.addEventListener("input", function () { save(group, undefined, note.value); });
      const form = article.querySelector("form");
      if (form) form.addEventListener("submit", function (event) { event.preventDefault(); });
    }

    function groupOf(article) { return article ? groups.get(article.dataset.reviewIndex) : undefined; }

    function setBlind(on) {
      document.body.classList.toggle("blind", on);
      if (blind) blind.checked = on;
      localStorage.setItem(BLIND, on ? "1" : "0");
      changed();
    }
    setBlind(localStorage.getItem(BLIND) === "1");
    if (blind) blind.addEventListener("change", function () { setBlind(blind.checked); });
    if (advance) {
      advance.checked = localStorage.getItem(ADVANCE) !== "0";
      advance.addEventListener("change", function () { localStorage.setItem(ADVANCE, advance.checked ? "1" : "0"); });
    }
    if (reviewer) {
      reviewer.value = localStorage.getItem(REVIEWER) || "";
      reviewer.addEventListener("input", function () { localStorage.setItem(REVIEWER, reviewer.value.trim()); });
    }

    // What an export holds: every imported review and every review given in this browser for these runs,
    // the newest per conversation, notes without a verdict included.
    function exportEntries() {
      const byKey = new Map();
      imported.forEach(function (entry, key) { byKey.set(key, exported(entry)); });
      storedReviews(data.runs).forEach(function (entry) {
        const kept = byKey.get(entry.key);
        if (!kept || entry.reviewedAt >= kept.reviewedAt) byKey.set(entry.key, exported(entry));
      });
      return Array.from(byKey.values()).filter(function (e) {
        return e.verdict || e.note || imported.has(e.key);
      }).sort(function (a, b) {
        return (a.runId + "\u0000" + a.conversationId).localeCompare(b.runId + "\u0000" + b.conversationId);
      });
    }

    function download(name, type, text) {
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([text], { type: type }));
      link.download = name;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    }

    function exportAs(format) {
      const reviews = exportEntries();
      if (!reviews.length) {
        exportStatus.textContent = "Nothing to export yet: no verdict or note has been given on this site.";
        return;
      }
      const notes = reviews.filter(function (e) { return !e.verdict && e.note; }).length;
      if (format === "csv") {
        const cell = function (value) {
          const text = value === null || value === undefined ? "" : String(value);
          return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
        };
        const rows = [["version"].concat(FIELDS)].concat(reviews.map(function (e) {
          return [data.version].concat(FIELDS.map(function (name) { return e[name]; }));
        }));
        // A byte-order mark, so that spreadsheets read the file as UTF-8.
        download("wismo-reviews.csv", "text/csv", "\ufeff" + rows.map(function (row) {
          return row.map(cell).join(",");
        }).join("\r\n") + "\r\n");
      } else {
        const document_ = { version: data.version, exportedAt: new Date().toISOString(), reviews: reviews };
        download("wismo-reviews.json", "application/json", JSON.stringify(document_, null, 2) + "\n");
      }
      exportStatus.textContent = "Exported " + reviews.length + " review" + (reviews.length === 1 ? "" : "s") +
        (notes ? " (" + notes + " note" + (notes === 1 ? "" : "s") + " without a verdict)" : "") + ".";
    }
    const exportJson = document.getElementById("export-reviews");
    const exportCsv = document.getElementById("export-csv");
    if (exportJson) exportJson.addEventListener("click", function () { exportAs("json"); });
    if (exportCsv) exportCsv.addEventListener("click", function () { exportAs("csv"); });

    document.addEventListener("keydown", function (event) {
      const nav = window.wismoNav;
      if (event.key === "Escape" && event.target.tagName === "TEXTAREA") {
        const article = event.target.closest("[data-nav-item]");
        event.target.blur();
        if (article) article.focus();
        return;
      }
      if (!nav || event.ctrlKey || event.metaKey || event.altKey || nav.typing(event.target)) return;
      const digit = { "1": "justified", "2": "not_justified", "3": "unsure", "0": null };
      if (event.key in digit) {
        const group = groupOf(nav.current() || nav.move(1));
        if (!group) return;
        save(group, digit[event.key]);
        if (digit[event.key] && (!advance || advance.checked)) nav.move(1);
        event.preventDefault();
      } else if (event.key === "n") {
        const group = groupOf(nav.current() || nav.move(1));
        const note = group && group.article.querySelector("textarea");
        if (note) { note.focus(); event.preventDefault(); }
      } else if (event.key === "b") {
        setBlind(!document.body.classList.contains("blind"));
        event.preventDefault();
      }
    });

    window.addEventListener("storage", refresh);  // another tab of the site saved a verdict
    refresh();
    document.dispatchEvent(new CustomEvent("wismo:review-ready"));
    document.body.dataset.reviewReady = "true";
  });
})();
