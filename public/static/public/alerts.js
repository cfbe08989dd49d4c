/*
 * Following trails from the public map (riders' alerts): "Follow" in a trail's popup, and the
 * "Alerts" section of the side panel, which lists what this browser follows on this system,
 * its quiet hours and "at most one a day", and how to be told: notifications on this device
 * (Web Push), e-mail or text message (only where the system takes numbers today).
 *
 * Push: notification permission is asked only when Follow is pressed; the service worker
 * (/service-worker.js, scope /) is registered then, the browser's push subscription made with
 * the service's VAPID key, and the rules posted to POST /alerts/<id>; each change is posted
 * at once. E-mail and text: changes stay here until the rider sends them; the answer is a
 * link by e-mail ("check your inbox") or a 6-digit code by text, typed here (or on the alerts
 * page). A refusal is said next to its field, in the system's words; what was typed stays.
 * What is followed and the manage URLs are kept in this browser (localStorage). A map opened
 * at ?trail=<id> (a tapped notification) shows that trail. Text is set as text, never parsed
 * as HTML.
 */
(function () {
  "use strict";

  var trailMap = window.trailMap;
  var configNode = document.getElementById("alerts-config");
  if (!trailMap || !configNode || !window.fetch) return;
  var config = JSON.parse(configNode.textContent);
  var t = config.texts;
  var el = trailMap.el;
  var format = trailMap.format;
  var map = trailMap.map;
  var storeKey = "trail-alerts:" + config.systemId;
  var KINDS = ["opens", "closes", "caution", "groomed", "notices", "snow"];
  var DEFAULT_KINDS = ["opens", "closes"];
  // A snow rule's depth is kept in cm; a system that reports in inches shows inches.
  var CM_PER_UNIT = config.snowUnit === "in" ? 2.54 : 1;
  var pushable = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  // The full map's panel offers every channel; the embed, which has none, offers push alone.
  var aside = document.getElementById("panel");
  var channels = !aside ? [] : ["email"].concat(config.sms === "open" ? ["sms"] : []);
  if (pushable) channels.unshift("push");
  // What is being typed, kept across the panel's redrawing and any refusal: the addresses by
  // channel, the code, quiet hours not taken yet, and the words of each field's refusal.
  var draft = { email: "", sms: "", code: "", quiet: null, errors: {} };

  function saved() {
    var state;
    try {
      state = JSON.parse(window.localStorage.getItem(storeKey));
    } catch (error) {
      state = null;
    }
    state = state || {};
    state.rules = state.rules || [];
    state.manageUrl = state.manageUrl || "";
    if (channels.indexOf(state.channel) === -1) state.channel = channels[0];
    return state;
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

  // A refusal in the system's words: an address or a code as the service words it (in the
  // system's language, after the field's name), a limit with the time to try again.
  function refusal(response, answer) {
    var error = (answer && answer.error) || {};
    var refused = new Error(t.failed);
    refused.field = error.field === "address" || error.field === "code" ? error.field : "";
    if (refused.field) {
      refused.message = error.message.replace(error.field + ": ", "");
    } else if (error.code === "sms_paused") {
      refused.message = t.sms_paused_now;
    } else if (response.status === 429) {
      var wait = Number(response.headers.get("Retry-After")) || 60;
      var time = new Date(Date.now() + wait * 1000).toLocaleTimeString(document.documentElement.lang || undefined, {
        hour: "2-digit", minute: "2-digit",
      });
      refused.message = format(t.too_many, { time: time });
    } else if (error.code === "alerts_off") {
      refused.message = t.alerts_off;
    } else if (error.code === "push_unavailable") {
      refused.message = t.unavailable;
    }
    return refused;
  }

  // POST or PUT `body` as JSON: the answer's JSON, or a refusal; offline, "not sent".
  function post(url, body) {
    if (navigator.onLine === false) return Promise.reject(new Error(t.offline));
    return fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (answer) {
        if (!response.ok) throw refusal(response, answer);
        return answer;
      });
    }, function () {
      throw new Error(t.offline);
    });
  }

  function following(state, channel) {
    var body = { channel: channel, rules: state.rules, oncePerDay: Boolean(state.oncePerDay) };
    if (state.quietHours) body.quietHours = state.quietHours;
    return body;
  }

  function send(state) {
    if (!state.rules.length) return unfollowAll(state);
    return subscription().then(function (pushSubscription) {
      var body = following(state, "push");
      body.subscription = pushSubscription.toJSON();
      return post(config.followUrl, body);
    }).then(function (answer) {
      state.manageUrl = answer.manageUrl;
      keep(state);
      return state;
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

  // A change of the rules or options: by push it is posted at once once this browser follows
  // (or the rider asked, `said` the words of success) and kept when taken; by e-mail or text
  // it is kept here until the rider sends it.
  function changed(state, said) {
    if (state.channel === "push" && (state.manageUrl || said)) {
      return send(state).then(function () {
        renderPanel();
        if (said) say(said);
      }, function (error) { say(error.message); });
    }
    keep(state);
    renderPanel();
    return Promise.resolve();
  }

  // The Alerts section of the side panel (the full map; the embed has Follow only).
  var panel = el("section", "panel-section alerts-panel");
  panel.id = "alerts-panel";
  if (aside) aside.insertBefore(panel, aside.firstChild);
  var message = el("p", "alerts-message");
  message.setAttribute("role", "status");
  var popupMessage = null;

  function say(text) {
    message.textContent = text || "";
    if (popupMessage) {
      popupMessage.textContent = text || "";
      keepInView(popupMessage);
    }
  }

  // A popup grows upwards from its trail when its message or button changes, after Leaflet
  // placed it; pan the map so it stays whole on a phone. popup.update() would rebuild the
  // content from map.js's function and lose the Follow button.
  function keepInView(node) {
    var popup = node.closest(".leaflet-popup");
    if (!popup || !document.body.contains(popup)) return;
    var margin = 10;
    var box = popup.getBoundingClientRect();
    var frame = map.getContainer().getBoundingClientRect();
    var dx = Math.min(0, box.left - frame.left - margin) || Math.max(0, box.right - frame.right + margin);
    var dy = Math.min(0, box.top - frame.top - margin) || Math.max(0, box.bottom - frame.bottom + margin);
    if (dx || dy) map.panBy([dx, dy], { animate: false });
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
          changed(current);
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
    panel.appendChild(options(state));
    panel.appendChild(channelChoice(state));
    if (state.channel !== "push") panel.appendChild(addressForm(state));
    if (state.sent && state.sent.channel === state.channel) panel.appendChild(sentBox(state));
    if (state.manageUrl && state.channel === "push") {
      var manage = el("a", "alerts-manage", t.manage);
      manage.href = state.manageUrl;
      panel.appendChild(manage);
    }
    message.textContent = said;
    panel.appendChild(message);
  }

  // A field's refusal, said under it and tied to it for screen readers.
  function fieldError(input, name) {
    var words = el("p", "alerts-field-error", draft.errors[name] || "");
    words.id = "alerts-" + name + "-error";
    input.setAttribute("aria-describedby", words.id);
    if (draft.errors[name]) input.setAttribute("aria-invalid", "true");
    return words;
  }

  // Quiet hours (both times or neither) and "at most one alert a day per rule".
  function options(state) {
    var box = el("fieldset", "alerts-options");
    box.appendChild(el("legend", null, t.options));
    var quiet = el("div", "alerts-quiet");
    var bounds = {};
    [["from", t.quiet_from], ["to", t.quiet_to]].forEach(function (pair) {
      var label = el("label", null, pair[1] + " ");
      var input = el("input");
      input.type = "time";
      input.name = "quiet-" + pair[0];
      input.value = (draft.quiet || state.quietHours || {})[pair[0]] || "";
      input.addEventListener("change", function () {
        var from = bounds.from.value;
        var to = bounds.to.value;
        var current = saved();
        draft.quiet = { from: from, to: to };
        if ((from === "") !== (to === "") || (from && from === to)) {
          draft.errors.quiet = t.quiet_invalid;
          words.textContent = t.quiet_invalid;
          return;
        }
        draft.quiet = null;
        draft.errors.quiet = "";
        current.quietHours = from ? { from: from, to: to } : null;
        changed(current);
      });
      bounds[pair[0]] = input;
      label.appendChild(input);
      quiet.appendChild(label);
    });
    box.appendChild(quiet);
    var words = fieldError(bounds.to, "quiet");
    bounds.from.setAttribute("aria-describedby", words.id);
    box.appendChild(words);
    box.appendChild(el("p", "alerts-hint", t.quiet_hint));
    var once = el("label", "alerts-once");
    var onceBox = el("input");
    onceBox.type = "checkbox";
    onceBox.name = "once-per-day";
    onceBox.checked = Boolean(state.oncePerDay);
    onceBox.addEventListener("change", function () {
      var current = saved();
      current.oncePerDay = onceBox.checked;
      changed(current);
    });
    once.appendChild(onceBox);
    once.appendChild(document.createTextNode(t.once_per_day));
    box.appendChild(once);
    return box;
  }

  function channelChoice(state) {
    var box = el("fieldset", "alerts-channel");
    box.appendChild(el("legend", null, t.channel));
    channels.forEach(function (channel) {
      var label = el("label", null);
      var radio = el("input");
      radio.type = "radio";
      radio.name = "alerts-channel";
      radio.value = channel;
      radio.checked = state.channel === channel;
      radio.addEventListener("change", function () {
        var current = saved();
        current.channel = channel;
        keep(current);
        say("");
        renderPanel();
      });
      label.appendChild(radio);
      label.appendChild(document.createTextNode(t["channel_" + channel]));
      box.appendChild(label);
    });
    if (config.sms === "paused") box.appendChild(el("p", "alerts-note", t.sms_paused));
    return box;
  }

  // A form of one field (its label, its refusal under it) and one button; what is typed is
  // kept in `draft[key]`.
  function oneFieldForm(name, key, properties, labelText, buttonText, submit) {
    var form = el("form", "alerts-" + name + "-form");
    form.noValidate = true; // refusals are said in the system's words, under the field
    var input = el("input");
    input.id = "alerts-" + name;
    input.name = name;
    Object.keys(properties).forEach(function (property) { input[property] = properties[property]; });
    input.value = draft[key];
    input.addEventListener("input", function () { draft[key] = input.value; });
    var label = el("label", null, labelText);
    label.htmlFor = input.id;
    var button = el("button", "alerts-send", buttonText);
    button.type = "submit";
    form.appendChild(label);
    form.appendChild(input);
    form.appendChild(fieldError(input, name));
    form.appendChild(button);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      submit(button);
    });
    return form;
  }

  // The address or number, and the button that sends the rules for confirmation.
  function addressForm(state) {
    var channel = state.channel;
    var email = channel === "email";
    var kind = email ? "email" : "tel";
    return oneFieldForm(
      "address", channel, { type: kind, autocomplete: kind },
      email ? t.email_label : t.phone_label, email ? t.send_email : t.send_sms,
      function (button) { signUp(channel, button); }
    );
  }

  function signUp(channel, button) {
    var state = saved();
    draft.errors.address = "";
    if (!state.rules.length) {
      draft.errors.address = t.pick_first;
    } else if (!draft[channel].trim()) {
      draft.errors.address = channel === "email" ? t.address_missing_email : t.address_missing_sms;
    }
    if (draft.errors.address) {
      renderPanel();
      document.getElementById("alerts-address").focus();
      return;
    }
    var body = following(state, channel);
    body.address = draft[channel];
    button.disabled = true;
    button.textContent = t.sending;
    post(config.followUrl, body).then(function (answer) {
      var current = saved();
      current.sent = { channel: channel, address: draft[channel].trim(), manageUrl: answer.manageUrl };
      keep(current);
      draft.code = "";
      draft.errors.code = "";
      say("");
      renderPanel();
      var next = document.getElementById(channel === "sms" ? "alerts-code" : "alerts-sent");
      if (next) next.focus();
    }, function (error) {
      draft.errors.address = error.message;
      renderPanel();
      document.getElementById("alerts-address").focus();
    });
  }

  // After a sign-up: "check your inbox", or the code's field; then "confirmed".
  function sentBox(state) {
    var sent = state.sent;
    var box = el("div", "alerts-sent");
    box.id = "alerts-sent";
    box.tabIndex = -1;
    box.setAttribute("role", "status");
    if (sent.confirmed) {
      box.appendChild(el("p", null, sent.channel === "email" ? t.confirmed_email : t.confirmed_sms));
      var page = el("a", "alerts-manage", t.manage);
      page.href = sent.manageUrl;
      box.appendChild(page);
      return box;
    }
    if (sent.channel === "email") {
      box.appendChild(el("p", null, format(t.check_inbox, { address: sent.address })));
      return box;
    }
    box.appendChild(el("p", null, format(t.code_sent, { address: sent.address })));
    var form = oneFieldForm(
      "code", "code", { inputMode: "numeric", autocomplete: "one-time-code", maxLength: 7 },
      t.code, t.confirm, confirmCode
    );
    box.appendChild(form);
    var elsewhere = el("a", "alerts-manage", t.code_elsewhere);
    elsewhere.href = sent.manageUrl;
    box.appendChild(elsewhere);
    return box;
  }

  function confirmCode(button) {
    draft.errors.code = draft.code.trim() ? "" : t.code_missing;
    if (draft.errors.code) {
      renderPanel();
      document.getElementById("alerts-code").focus();
      return;
    }
    button.disabled = true;
    post(saved().sent.manageUrl + "/code", { code: draft.code }).then(function () {
      var current = saved();
      current.sent.confirmed = true;
      keep(current);
      draft.code = "";
      renderPanel();
      document.getElementById("alerts-sent").focus();
    }, function (error) {
      draft.errors.code = error.message;
      renderPanel();
      document.getElementById("alerts-code").focus();
    });
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
      changed(current, t.following);
    });
    label.appendChild(document.createTextNode(t.snow_at_least));
    label.appendChild(depth);
    label.appendChild(document.createTextNode(config.snowUnit));
    return label;
  }

  function follow(trailId) {
    var state = saved();
    if (!state.channel) {
      say(t.no_push);
      return Promise.resolve();
    }
    if (!ruleOf(state, trailId)) state.rules.push({ trailId: trailId, on: DEFAULT_KINDS.slice() });
    if (state.channel !== "push") {
      keep(state);
      renderPanel();
      say(t.added);
      updateButtons();
      return Promise.resolve();
    }
    say(t.asking);
    return changed(state, t.following).then(updateButtons);
  }

  function updateButtons() {
    var state = saved();
    Array.prototype.forEach.call(document.querySelectorAll(".follow-button"), function (button) {
      var followed = Boolean(ruleOf(state, button.getAttribute("data-trail-id")));
      button.textContent = followed ? t.following_button : t.follow;
      button.setAttribute("aria-pressed", followed ? "true" : "false");
      keepInView(button);
    });
  }

  // A sign-up sent earlier: confirmed since (the link opened elsewhere), or removed.
  function checkSent() {
    var sent = saved().sent;
    if (!sent || sent.confirmed) return;
    fetch(sent.manageUrl, { headers: { Accept: "application/json" } }).then(function (response) {
      if (response.status !== 404 && !response.ok) return;
      return (response.ok ? response.json() : Promise.resolve(null)).then(function (followed) {
        var current = saved();
        if (!current.sent || current.sent.manageUrl !== sent.manageUrl) return;
        if (followed) current.sent.confirmed = Boolean(followed.active);
        else delete current.sent;
        keep(current);
        if (!panel.contains(document.activeElement)) renderPanel();
      });
    }).catch(function () {});
  }

  renderPanel();
  checkSent();
  // The rules' trail names come with the map's file; the panel is not redrawn under the
  // rider's fingers.
  document.addEventListener("trailmap:drawn", function () {
    if (!panel.contains(document.activeElement)) renderPanel();
  });

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
