// Playing without a mouse, and hearing what happens: the hand's cards are one tab stop
// (the arrow keys move between them, Enter or Space plays one that may be played), P
// picks up, and a polite live region says each action and whose turn it is.
(function () {
  "use strict";

  function handCards() {
    return Array.prototype.slice.call(document.querySelectorAll("#my-hand .hand-cards .card-button"));
  }

  // Roving tabindex: the chosen card holds the hand's only tab stop.
  function focusCard(index) {
    var cards = handCards();
    if (!cards.length) { return; }
    index = Math.max(0, Math.min(cards.length - 1, index));
    cards.forEach(function (el, i) { el.tabIndex = i === index ? 0 : -1; });
    cards[index].focus();
  }

  // The skip link takes the keyboard to the hand's tab stop (the card that holds it), or
  // to the hand itself when it has no cards.
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest ? evt.target.closest('a[href="#my-hand"]') : null;
    if (!link) { return; }
    var cards = handCards();
    var stop = cards.filter(function (el) { return el.tabIndex === 0; })[0] || cards[0];
    var target = stop || document.getElementById("my-hand");
    if (!target) { return; }
    evt.preventDefault();
    target.scrollIntoView({ block: "nearest" });
    target.focus();
  });

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  document.addEventListener("keydown", function (evt) {
    if (evt.altKey || evt.ctrlKey || evt.metaKey) { return; }
    var card = evt.target.closest ? evt.target.closest("#my-hand .card-button") : null;
    if (card) {
      var cards = handCards();
      var index = cards.indexOf(card);
      var moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: cards.length - 1 };
      if (evt.key in moves) {
        evt.preventDefault();
        focusCard(moves[evt.key]);
        return;
      }
    }
    if ((evt.key === "p" || evt.key === "P") && !typing(evt.target)) {
      var pickup = document.querySelector('#my-hand [data-testid="pickup"]');
      if (pickup) {
        evt.preventDefault();
        pickup.click();
      }
    }
  });

  // A swap replaces the hand or some of its buttons, and the focus with them: give it back
  // to the same card, else to the card that took its place, else to the same kind of move.
  // A message that changes the hand gives the tab stop to the first card that may be
  // played, else the first card, as the server draws a hand whole: it sends only the
  // buttons whose card changed, not those that only lose or take the stop.
  var focused = null;
  var handChanged = false; // by the message being swapped in
  function firstStop() {
    var cards = handCards();
    var stop = cards.filter(function (el) { return el.classList.contains("legal"); })[0] || cards[0];
    cards.forEach(function (el) { el.tabIndex = el === stop ? 0 : -1; });
  }

  document.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var hand = document.getElementById("my-hand");
    var active = document.activeElement;
    focused = null;
    if (hand && active && hand.contains(active)) {
      focused = { card: active.dataset.card, index: handCards().indexOf(active), testid: active.dataset.testid };
    }
    handChanged = /id="hb-|:#hc-|#hand-cards|id="my-hand"/.test(evt.detail.message || "");
  });

  function restoreFocus() {
    if (handChanged) {
      handChanged = false;
      firstStop();
    }
    if (!focused) { return; }
    var was = focused;
    focused = null;
    var active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) { return; }
    if (was.testid) {
      var same = document.querySelector('#my-hand [data-testid="' + was.testid + '"]');
      if (same) { same.focus(); return; }
    }
    var cards = handCards();
    var at = cards.map(function (el) { return el.dataset.card; }).indexOf(was.card);
    if (at === -1) { at = was.index === -1 ? 0 : was.index; }
    focusCard(at);
  }

  // The live region: once per action, in one update, what happened (cards in words, the
  // outcome of the hand with it) and who moves next; the server writes both on the
  // status's mark (#table-status).
  var announcer = document.getElementById("announcer");

  function announce(detail) {
    var status = document.getElementById("table-status");
    if (!announcer || !status) { return; }
    if (detail.before.hand === detail.after.hand && detail.before.version === detail.after.version) {
      return; // nothing was done: a resync or another change of the page
    }
    var parts = [];
    if (status.dataset.said) { parts.push(status.dataset.said); }
    var turn = document.querySelector('[data-testid="your-turn"]');
    var next = turn ? turn.textContent.trim() : status.dataset.next;
    if (next) { parts.push(next); }
    if (parts.length) { announcer.textContent = parts.join(". "); }
  }

  document.addEventListener("pan:table-changed", function (evt) {
    restoreFocus();
    announce(evt.detail);
  });
  document.addEventListener("htmx:wsAfterMessage", restoreFocus); // a message of the hand alone
})();
