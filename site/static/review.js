// wismo review page: verdicts in localStorage, blind review, keyboard shortcuts, export as JSON.
// A verdict's key binds it to one summary text: key = sha256("wismo-review-v1\0" + runId + "\0" +
// conversationId + "\0" + sha256(summary)), the same function as wismo/sitegen/reviews.py, so a
// changed summary never inherits an old verdict. Summaries are read from the inlined JSON with
// JSON.parse and only ever written back with textContent.
(function () {
  "use strict";
  const STORE = "wismo.review.v1:";
  const BLIND = "wismo.review.blind";
  const VERDICTS = ["justified", "not_justified", "unsure"];
  const LABELS = { justified: "justified", not_justified: "not justified", unsure: "unsure" };

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

  // Exposed for the browser tests: they compare these keys with Python's.
  window.wismoReview = { reviewKey: reviewKey, sha256: sha256, sha256Plain: function (text) {
    return sha256Plain(new TextEncoder().encode(text));
  } };

  document.addEventListener("DOMContentLoaded", async function () {
    const dataElement = document.getElementById("review-data");
    if (!dataElement) return;
    const data = JSON.parse(dataElement.textContent);
    const progress = document.getElementById("review-progress");
    const filter = document.getElementById("review-filter");
    const blind = document.getElementById("blind-toggle");
    const exportButton = document.getElementById("export-reviews");
    const entries = new Map(); // index -> {item, article, key, summarySha}

    function refresh() {
      let reviewed = 0;
      entries.forEach(function (entry) {
        const stored = readStored(entry.key);
        const verdict = stored && stored.verdict ? stored.verdict : "";
        entry.article.dataset.verdict = verdict;
        if (verdict) reviewed += 1;
        const wanted = filter ? filter.value : "all";
        const hide = (wanted === "unreviewed" && verdict) || (wanted === "reviewed" && !verdict) ||
          (wanted === "not_justified" && verdict !== "not_justified");
        entry.article.classList.toggle("hidden-by-filter", Boolean(hide));
      });
      const stored = storedReviews(data.runs).filter(function (e) { return e.verdict; }).length;
      if (progress) {
        progress.textContent = reviewed + " of " + entries.size + " on this page reviewed · " + stored +
          " verdicts stored for these runs (of " + data.total + " summaries)";
      }
    }

    function save(entry, verdict, note) {
      const previous = readStored(entry.key) || {};
      verdict = verdict === undefined ? (previous.verdict || null) : verdict;
      note = note === undefined ? (previous.note || "") : note;
      const saved = entry.article.querySelector(".verdict-saved");
      if (!verdict && !note) {
        localStorage.removeItem(STORE + entry.key);
        if (saved) saved.textContent = "No verdict.";
      } else {
        const record = { key: entry.key, runId: entry.item.runId, conversationId: entry.item.conversationId,
          design: entry.item.design, summarySha: entry.summarySha, verdict: verdict, note: note,
          reviewedAt: new Date().toISOString() };
        localStorage.setItem(STORE + entry.key, JSON.stringify(record));
        if (saved) saved.textContent = verdict ? "Saved: " + LABELS[verdict] + "." : "Note saved; no verdict yet.";
      }
      refresh();
    }

    function show(entry) {
      const stored = readStored(entry.key);
      entry.article.querySelectorAll('input[type="radio"]').forEach(function (radio) {
        radio.checked = Boolean(stored && stored.verdict === radio.value);
      });
      const note = entry.article.querySelector("textarea");
      if (note) note.value = stored && stored.note ? stored.note : "";
      const saved = entry.article.querySelector(".verdict-saved");
      if (saved) saved.textContent = stored && stored.verdict ? "Saved: " + LABELS[stored.verdict] + "." : "";
    }

    for (const item of data.items) {
      const article = document.querySelector('[data-review-index="' + item.index + '"]');
      if (!article) continue;
      const keys = await reviewKey(data.keyPrefix, item.runId, item.conversationId, item.summary);
      const entry = { item: item, article: article, key: keys.key, summarySha: keys.summarySha };
      entries.set(String(item.index), entry);
      article.dataset.reviewKey = keys.key;
      show(entry);
      article.querySelectorAll('input[type="radio"]').forEach(function (radio) {
        radio.addEventListener("change", function () { save(entry, radio.value); });
      });
      const note = article.querySelector("textarea");
      if (note) note.addEventListener("input", function () { save(entry, undefined, note.value); });
      const form = article.querySelector("form");
      if (form) form.addEventListener("submit", function (event) { event.preventDefault(); });
    }

    function entryOf(article) { return article ? entries.get(article.dataset.reviewIndex) : undefined; }

    function setBlind(on) {
      document.body.classList.toggle("blind", on);
      if (blind) blind.checked = on;
      localStorage.setItem(BLIND, on ? "1" : "0");
    }
    setBlind(localStorage.getItem(BLIND) === "1");
    if (blind) blind.addEventListener("change", function () { setBlind(blind.checked); });
    if (filter) filter.addEventListener("change", refresh);

    if (exportButton) exportButton.addEventListener("click", function () {
      const reviews = storedReviews(data.runs).filter(function (e) { return e.verdict; });
      reviews.sort(function (a, b) {
        return (a.runId + "\u0000" + a.conversationId).localeCompare(b.runId + "\u0000" + b.conversationId);
      });
      const document_ = { version: data.version, exportedAt: new Date().toISOString(), reviews: reviews };
      const blob = new Blob([JSON.stringify(document_, null, 2) + "\n"], { type: "application/json" });
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = "wismo-reviews.json";
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    });

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
        const entry = entryOf(nav.current() || nav.move(1));
        if (!entry) return;
        save(entry, digit[event.key]);
        show(entry);
        if (digit[event.key]) nav.move(1);
        event.preventDefault();
      } else if (event.key === "n") {
        const entry = entryOf(nav.current() || nav.move(1));
        const note = entry && entry.article.querySelector("textarea");
        if (note) { note.focus(); event.preventDefault(); }
      } else if (event.key === "b") {
        setBlind(!document.body.classList.contains("blind"));
        event.preventDefault();
      }
    });

    refresh();
    document.body.dataset.reviewReady = "true";
  });
})();
