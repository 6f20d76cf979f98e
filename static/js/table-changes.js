// The table page's reaction to each change the server sends: the cards move (a played
// card travels from its player to the pile, picked-up cards from the pile to the hand).
// The server decides everything; this only looks at the page before and after a message.
(function () {
  "use strict";

  var reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  var FLIGHT_MS = 420;

  function rectOf(el) {
    var r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  }

  function cardsIn(selector) {
    return Array.prototype.slice.call(document.querySelectorAll(selector + " [data-card]"));
  }

  // What the page shows of the table, read before a message's swaps and after them.
  function look() {
    var status = document.getElementById("table-status");
    var pile = document.getElementById("pile");
    var hand = document.getElementById("my-hand");
    var moverLabel = document.querySelector("#players .player > .to-move");
    var mover = moverLabel ? moverLabel.parentNode : null;
    var boxes = {};
    var letters = {};
    document.querySelectorAll("#players .player").forEach(function (box) {
      boxes[box.dataset.seat] = box;
      var l = box.querySelector('[data-testid="letters"]');
      letters[box.dataset.seat] = l ? l.textContent.trim() : "";
    });
    return {
      hand: status ? status.dataset.hand : "",
      version: status ? parseInt(status.dataset.version, 10) : 0,
      pileCount: pile ? pile.querySelectorAll("[data-card]").length : 0,
      pileCards: cardsIn("#pile"),
      handCards: cardsIn("#my-hand"),
      mySeat: hand ? hand.dataset.mySeat : "",
      moverSeat: mover ? mover.dataset.seat : "",
      boxes: boxes,
      letters: letters,
      yourTurn: !!document.querySelector('[data-testid="your-turn"]')
    };
  }

  // Positions are taken when the message arrives, before any of its swaps: that is the
  // page the player last saw (the swaps of one message are painted together).
  function withRects(seen) {
    seen.pileRects = seen.pileCards.map(rectOf);
    seen.handRects = {};
    seen.handCards.forEach(function (el) { seen.handRects[el.dataset.card] = rectOf(el); });
    seen.boxRects = {};
    Object.keys(seen.boxes).forEach(function (seat) { seen.boxRects[seat] = rectOf(seen.boxes[seat]); });
    return seen;
  }

  // FLIP: put the element where it was (First), at once, then let the transition of
  // .card-flight carry it to where it is now (Last).
  function flyFrom(el, from, delay) {
    var to = rectOf(el);
    if (!to.width || !from.width) { return; }
    var dx = from.left + from.width / 2 - (to.left + to.width / 2);
    var dy = from.top + from.height / 2 - (to.top + to.height / 2);
    var scale = Math.max(0.35, Math.min(1.6, from.width / to.width));
    el.classList.remove("card-flight");
    el.style.transform = "translate(" + dx + "px, " + dy + "px) scale(" + scale + ")";
    el.getBoundingClientRect(); // the browser takes the start position before the flight
    el.style.transitionDelay = (delay || 0) + "ms";
    el.classList.add("card-flight");
    el.style.transform = "";
    var done = function () {
      el.classList.remove("card-flight");
      el.style.transitionDelay = "";
      // The card stays on the page as the server drew it (a move sends only what changed).
      if (!el.getAttribute("style")) { el.removeAttribute("style"); }
    };
    el.addEventListener("transitionend", done, { once: true });
    setTimeout(done, FLIGHT_MS + (delay || 0) + 100);
  }

  // A card that left the page (picked up by another player) flies as a copy from where it
  // lay to that player's box, and the copy goes away.
  function flyAway(el, from, to, delay) {
    if (!from.width || !to) { return; }
    var ghost = el.cloneNode(true);
    ghost.removeAttribute("id");
    ghost.querySelectorAll("[id]").forEach(function (inner) { inner.removeAttribute("id"); });
    ghost.classList.add("card-ghost");
    ghost.setAttribute("aria-hidden", "true");
    ghost.style.left = from.left + window.scrollX + "px"; // in the page: it may scroll meanwhile
    ghost.style.top = from.top + window.scrollY + "px";
    ghost.style.width = from.width + "px";
    ghost.style.height = from.height + "px";
    document.body.appendChild(ghost);
    ghost.getBoundingClientRect();
    var dx = to.left + to.width / 2 - (from.left + from.width / 2);
    var dy = to.top + to.height / 2 - (from.top + from.height / 2);
    ghost.style.transitionDelay = (delay || 0) + "ms";
    ghost.classList.add("card-flight");
    ghost.style.transform = "translate(" + dx + "px, " + dy + "px) scale(0.4)";
    ghost.style.opacity = "0";
    setTimeout(function () { ghost.remove(); }, FLIGHT_MS + (delay || 0) + 100);
  }

  function moveCards(before, after) {
    if (reducedMotion.matches || before.hand !== after.hand || before.version === after.version) {
      return;
    }
    var moverBox = before.boxRects[before.moverSeat];
    var mine = before.mySeat !== "" && before.mySeat === before.moverSeat;
    var added = after.pileCount - before.pileCount;
    if (added > 0) { // a play: the new top cards come from the hand or from the mover's box
      after.pileCards.slice(-added).forEach(function (el, i) {
        var from = before.handRects[el.dataset.card] || moverBox;
        if (from) { flyFrom(el, from, i * 60); }
      });
    } else if (added < 0) { // a pick-up: the top cards go to the hand or to the mover's box
      var taken = before.pileCards.slice(added);
      var takenRects = before.pileRects.slice(added);
      var inHand = {};
      after.handCards.forEach(function (el) { inHand[el.dataset.card] = el; });
      var target = after.boxes[before.moverSeat];
      taken.forEach(function (el, i) {
        var arrived = mine ? inHand[el.dataset.card] : null;
        if (arrived) {
          flyFrom(arrived, takenRects[i], i * 60);
        } else if (target) {
          flyAway(el, takenRects[i], rectOf(target), i * 60);
        }
      });
    }
  }

  var before = null;
  document.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var message = evt.detail.message || "";
    before = message.indexOf('id="table-status"') !== -1 ? withRects(look()) : null;
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!before) { return; }
    var after = look();
    moveCards(before, after);
    document.dispatchEvent(new CustomEvent("pan:table-changed", { detail: { before: before, after: after } }));
    before = null;
  });
})();
