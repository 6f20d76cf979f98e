// The notification settings' switch (templates/notifications/settings.html): pushes in
// this browser, on or off. On: the browser asks the player's permission, subscribes at
// its vendor's push service with the site's public key, and the subscription is posted
// to the site (notifications.views.push_subscribe). Off: it unsubscribes, and the site
// forgets it. The list below the switch marks this browser's own row.
(function () {
  "use strict";
  var box = document.querySelector("[data-push]");
  if (!box) { return; }
  var button = box.querySelector("[data-push-switch]");
  var status = box.querySelector("[data-push-status]");

  function say(which) { status.textContent = which ? status.dataset[which] : ""; }

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say("unsupported");
    return;
  }

  function serverKey() {
    var text = box.dataset.pushKey.replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(text + "===".slice((text.length + 3) % 4));
    return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
  }

  function post(url, fields) {
    var token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
    return fetch(url, {
      method: "POST",
      body: new URLSearchParams(fields),
      credentials: "same-origin",
      headers: { "X-CSRFToken": token },
    });
  }

  function show(subscription) {
    button.setAttribute("aria-checked", subscription ? "true" : "false");
    button.disabled = false;
    document.querySelectorAll("[data-endpoint]").forEach(function (row) {
      var mine = subscription !== null && row.dataset.endpoint === subscription.endpoint;
      row.querySelector("[data-push-this]").hidden = !mine;
    });
  }

  navigator.serviceWorker.ready.then(function (registration) {
    return registration.pushManager.getSubscription();
  }).then(show, function () { say("unsupported"); });

  async function turnOn(registration) {
    var permission = await Notification.requestPermission();
    if (permission !== "granted") { say("denied"); show(null); return; }
    var subscription;
    try {
      subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: serverKey(),
      });
    } catch (error) {
      say("failed");
      show(null);
      return;
    }
    var keys = subscription.toJSON().keys;
    var answer = await post(box.dataset.subscribeUrl, {
      endpoint: subscription.endpoint, p256dh: keys.p256dh, auth: keys.auth,
    });
    if (!answer.ok) {
      status.textContent = await answer.text();
      await subscription.unsubscribe();
      show(null);
      return;
    }
    window.location.assign(answer.url);  // the settings again, this browser in the list
  }

  async function turnOff(subscription) {
    var endpoint = subscription.endpoint;
    await subscription.unsubscribe();
    var answer = await post(box.dataset.removeUrl, { endpoint: endpoint });
    window.location.assign(answer.url);
  }

  button.addEventListener("click", async function () {
    button.disabled = true;
    say("");
    var registration = await navigator.serviceWorker.ready;
    var current = await registration.pushManager.getSubscription();
    if (current) { await turnOff(current); } else { await turnOn(registration); }
  });
})();
