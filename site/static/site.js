// wismo report site, every page: progressive enhancement only (the pages are complete without it).
// Marks <html> as scripted, filters [data-filter-item] elements, and moves between [data-nav-item]
// elements with j/k. Nothing here reads model text as HTML or talks to the network.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // Shortcuts stay off while text is being typed; a focused checkbox, radio or button does not count.
  function typing(target) {
    if (!target) return false;
    if (target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return true;
    return target.tagName === "INPUT" && !/^(checkbox|radio|button|submit|reset)$/.test(target.type);
  }

  function applyFilter(container) {
    const search = document.querySelector('input[data-filter="#' + container.id + '"]');
    const failing = document.querySelector('input[data-filter-failing="#' + container.id + '"]');
    const query = search ? search.value.trim().toLowerCase() : "";
    const onlyFailing = failing ? failing.checked : false;
    container.querySelectorAll("[data-filter-item]").forEach(function (item) {
      const hide = (query && !item.textContent.toLowerCase().includes(query)) ||
        (onlyFailing && item.dataset.passed === "true");
      item.classList.toggle("hidden-by-filter", Boolean(hide));
    });
  }

  function visibleItems() {
    return Array.from(document.querySelectorAll("[data-nav-item]")).filter(function (item) {
      return item.offsetParent !== null;
    });
  }

  function currentItem() {
    const active = document.activeElement && document.activeElement.closest("[data-nav-item]");
    return active || document.querySelector("[data-nav-item].current");
  }

  // The bottom of a sticky toolbar (the review page's), which an item must not hide behind.
  function stickyBottom() {
    const bar = document.querySelector("[data-sticky]");
    return bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
  }

  function focusItem(item) {
    document.querySelectorAll("[data-nav-item].current").forEach(function (el) { el.classList.remove("current"); });
    item.classList.add("current");
    item.focus({ preventScroll: true });
    // Scroll only when the item's top is hidden or the item is cut off; then bring its top just below any
    // sticky toolbar (its scroll-margin-top, in style.css, is the toolbar's height).
    const box = item.getBoundingClientRect();
    if (box.top < stickyBottom() || box.bottom > window.innerHeight) item.scrollIntoView({ block: "start" });
  }

  // Shared with review.js: move to the next (+1) or previous (-1) visible item.
  function move(delta) {
    const items = visibleItems();
    if (!items.length) return null;
    const at = items.indexOf(currentItem());
    const next = at < 0 ? items[delta > 0 ? 0 : items.length - 1]
      : items[Math.min(items.length - 1, Math.max(0, at + delta))];
    focusItem(next);
    return next;
  }
  window.wismoNav = { move: move, current: currentItem, typing: typing };

  // A link to a folded section (a case page's side-by-side view of one repetition) opens it.
  function openTarget() {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  window.addEventListener("hashchange", openTarget);

  document.addEventListener("DOMContentLoaded", function () {
    openTarget();
    document.querySelectorAll("input[data-filter], input[data-filter-failing]").forEach(function (input) {
      const container = document.querySelector(input.dataset.filter || input.dataset.filterFailing);
      if (!container) return;
      input.addEventListener("input", function () { applyFilter(container); });
      input.addEventListener("change", function () { applyFilter(container); });
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "j") { move(1); event.preventDefault(); }
    else if (event.key === "k") { move(-1); event.preventDefault(); }
    else if (event.key === "/") {
      const search = document.querySelector("input[data-filter]");
      if (search) { search.focus(); event.preventDefault(); }
    }
  });
})();
