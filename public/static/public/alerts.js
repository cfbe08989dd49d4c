/*
 * Following trails from the public map (riders' alerts): "Follow" in a trail's popup, and the
 * "Alerts" section of the side panel, which lists what this browser follows on this system. Notification
 * permission is asked only when Follow is pressed; the service worker (/service-worker.js,
 * scope /) is registered then, the browser's push subscription made with the service's VAPID
 * key, and the rules posted to POST /alerts/<id>. What is followed and the manage URL are
 * kept in this browser (localStorage). A map opened at ?trail=<id> (a tapped notification)
 * shows that trail. Text is set as text, never parsed as HTML.
 */
(function () {
  "use strict";

  var trailMap = window.trailMap;
  var configNode = document.getElementById("alerts-config");
  if (!trailMap || !configNode || !window.fetch) return;
  var config = JSON.parse(configNode.textContent);
  var t = config.texts;
  var el = trailMap.el;
  var map = trailMap.map;
  var storeKey = "trail-alerts:" + config.systemId;
  var KINDS = ["opens", "closes", "caution", "groomed", "notices", "snow"];
  var DEFAULT_KINDS = ["opens", "closes"];
  // A snow rule's depth is kept in cm; a system that reports in inches shows inches.
  var CM_PER_UNIT = config.snowUnit === "in" ? 2.54 : 1;
  var pushable = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

  function saved() {
    try {
      return JSON.parse(window.localStorage.getItem(storeKey)) || { rules: [], manageUrl: "" };
    } catch (error) {
      return { rules: [], manageUrl: "" };
    }
  }

  function keep(state) {
    window.localStorage.setItem(storeKey, JSON.stringify(state));
  }

  function ruleOf(state, trailId) {
    return state.rules.filter(function (rule) { return rule.trailId === trailId; })[0];
  }

  function trailName(trailId) {
    if (trailId === null) return t.whole_system;
    var feature = trailMap.features().filter(function (f) { return f.properties.trailId === trailId; })[0];
    return feature ? feature.properties.name : trailId;
  }

  function base64ToBytes(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  function subscription() {
    return Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw new Error(t.permission_refused);
      return navigator.serviceWorker.register(config.serviceWorkerUrl, { scope: "/" });
    }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      return registration.pushManager.getSubscription().then(function (existing) {
        if (existing) return existing;
        return fetch(config.keyUrl).then(function (response) {
          if (!response.ok) throw new Error(t.unavailable);
          return response.json();
        }).then(function (key) {
          return registration.pushManager.subscribe({
            userVisibleOnly: true,
            applicationServerKey: base64ToBytes(key.publicKey),
          });
        });
      });
    });
  }

  function send(state) {
    if (!state.rules.length) return unfollowAll(state);
    return subscription().then(function (pushSubscription) {
      var body = { channel: "push", subscription: pushSubscription.toJSON(), rules: state.rules };
      if (state.quietHours) body.quietHours = state.quietHours;
      return fetch(config.followUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body),
      });
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw new Error(answer.error ? answer.error.message : t.failed);
        state.manageUrl = answer.manageUrl;
        keep(state);
        return state;
      });
    });
  }

  function unfollowAll(state) {
    var done = state.manageUrl ? fetch(state.manageUrl, { method: "DELETE" }) : Promise.resolve();
    return done.then(function () {
      state.manageUrl = "";
      keep(state);
      return state;
    });
  }

  // The Alerts section of the side panel (the full map; the embed has Follow only).
  var aside = document.getElementById("panel");
  var panel = el("section", "panel-section alerts-panel");
  panel.id = "alerts-panel";
  if (aside) aside.insertBefore(panel, aside.firstChild);
  var message = el("p", "alerts-message");
  message.setAttribute("role", "status");
  var popupMessage = null;

  function say(text) {
    message.textContent = text || "";
    if (popupMessage) popupMessage.textContent = text || "";
  }

  function renderPanel() {
    var state = saved();
    var said = message.textContent;
    panel.textContent = "";
    panel.appendChild(el("h2", null, t.alerts));
    if (!pushable) panel.appendChild(el("p", "alerts-note", t.no_push));
    if (!state.rules.length) panel.appendChild(el("p", "alerts-note", t.nothing_followed));
    var list = el("ul", "alerts-rules");
    state.rules.forEach(function (rule) {
      var item = el("li", "alerts-rule");
      item.setAttribute("data-trail-id", rule.trailId === null ? "" : rule.trailId);
      item.appendChild(el("strong", null, trailName(rule.trailId)));
      var kinds = el("span", "alerts-kinds");
      KINDS.forEach(function (kind) {
        var label = el("label", null);
        var box = el("input");
        box.type = "checkbox";
        box.value = kind;
        box.checked = rule.on.indexOf(kind) !== -1;
        box.addEventListener("change", function () {
          var current = saved();
          var kept = ruleOf(current, rule.trailId);
          kept.on = KINDS.filter(function (k) {
            return k === kind ? box.checked : kept.on.indexOf(k) !== -1;
          });
          if (!kept.on.length) current.rules.splice(current.rules.indexOf(kept), 1);
          send(current).then(renderPanel, function (error) { say(error.message); });
        });
        label.appendChild(box);
        label.appendChild(document.createTextNode(t[kind]));
        kinds.appendChild(label);
        if (kind === "snow" && box.checked) kinds.appendChild(snowDepth(rule));
      });
      item.appendChild(kinds);
      list.appendChild(item);
    });
    panel.appendChild(list);
    if (!ruleOf(state, null)) {
      var whole = el("button", "alerts-whole", t.follow_system);
      whole.type = "button";
      whole.addEventListener("click", function () { follow(null); });
      panel.appendChild(whole);
    }
    if (state.manageUrl) {
      var manage = el("a", "alerts-manage", t.manage);
      manage.href = state.manageUrl;
      panel.appendChild(manage);
    }
    message.textContent = said;
    panel.appendChild(message);
  }

  // "At least N cm in 24 hours" of a rule with snow (empty: any new snow).
  function snowDepth(rule) {
    var label = el("label", "alerts-snow");
    var depth = el("input", "alerts-snow-depth");
    depth.type = "number";
    depth.min = "0";
    depth.max = String(Math.floor(500 / CM_PER_UNIT));
    depth.step = "1";
    depth.placeholder = t.snow_any;
    if (rule.snowCm !== null && rule.snowCm !== undefined) {
      depth.value = String(Math.round(rule.snowCm / CM_PER_UNIT));
    }
    depth.addEventListener("change", function () {
      if (!depth.checkValidity()) {
        say(t.snow_invalid);
        return;
      }
      var current = saved();
      var kept = ruleOf(current, rule.trailId);
      kept.snowCm = depth.value === "" ? null : Number(depth.value) * CM_PER_UNIT;
      send(current).then(function () {
        renderPanel();
        say(t.following);
      }, function (error) { say(error.message); });
    });
    label.appendChild(document.createTextNode(t.snow_at_least));
    label.appendChild(depth);
    label.appendChild(document.createTextNode(config.snowUnit));
    return label;
  }

  function follow(trailId) {
    var state = saved();
    if (!pushable) {
      say(t.no_push);
      return Promise.resolve();
    }
    if (!ruleOf(state, trailId)) state.rules.push({ trailId: trailId, on: DEFAULT_KINDS.slice() });
    say(t.asking);
    return send(state).then(function () {
      renderPanel();
      say(t.following);
      updateButtons();
    }, function (error) {
      say(error.message || t.failed);
    });
  }

  function updateButtons() {
    var state = saved();
    Array.prototype.forEach.call(document.querySelectorAll(".follow-button"), function (button) {
      var followed = Boolean(ruleOf(state, button.getAttribute("data-trail-id")));
      button.textContent = followed ? t.following_button : t.follow;
      button.setAttribute("aria-pressed", followed ? "true" : "false");
    });
  }

  renderPanel();

  function trailOfLayer(layer) {
    var groups = trailMap.lines();
    return Object.keys(groups).filter(function (trailId) {
      return groups[trailId].indexOf(layer) !== -1;
    })[0];
  }

  map.on("popupopen", function (event) {
    var trailId = trailOfLayer(event.popup._source);
    var box = event.popup.getElement() && event.popup.getElement().querySelector(".popup");
    if (!trailId || !box || box.querySelector(".follow-button")) return;
    var button = el("button", "follow-button", t.follow);
    button.type = "button";
    button.setAttribute("data-trail-id", trailId);
    button.addEventListener("click", function () { follow(trailId); });
    box.appendChild(button);
    popupMessage = el("p", "follow-message");
    popupMessage.setAttribute("role", "status");
    box.appendChild(popupMessage);
    updateButtons();
  });

  // A map opened from a notification (?trail=<id>) shows that trail once it is drawn.
  var wanted = new URLSearchParams(window.location.search).get("trail");
  document.addEventListener("trailmap:drawn", function () {
    var lines = wanted && trailMap.lines()[wanted];
    if (!lines || !lines.length) return;
    wanted = null;
    map.fitBounds(L.featureGroup(lines).getBounds(), { padding: [40, 40], maxZoom: 16 });
    lines[0].openPopup();
  });
})();
