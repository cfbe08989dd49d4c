/*
 * The status board on a phone: a tap is shown at once and queued in localStorage, then posted
 * (the same fields the form posts without JavaScript, answered in JSON) until the server
 * confirms it. A queued change survives a reload and a lost connection; a change the server
 * refuses stays on screen as failed until the person dismisses or retries it. A later change
 * of the same trail or activity replaces a queued one, and the server's answers, and its state
 * read every few seconds, replace what the board shows wherever nothing is queued.
 * Every text is set as text (names come from the page the server escaped).
 */
(function () {
  "use strict";

  var board = document.querySelector(".board");
  var form = document.getElementById("board-form");
  if (!board || !form || !window.fetch || !window.localStorage) return;
  var t = JSON.parse(document.getElementById("board-texts").textContent);
  var systemId = board.getAttribute("data-system");
  var QUEUE_KEY = "board:" + systemId + ":queue";
  var STATE_KEY = "board:" + systemId + ":state";
  var REFRESH_MS = 15000;
  var RETRY_MS = [2000, 5000, 10000, 30000];
  var syncLine = document.getElementById("board-sync");
  var failures = document.getElementById("board-failures");
  var lastDone = ""; // what the last confirmation or change of checked trails did
  var queue = readJson(QUEUE_KEY, []);
  var flushing = false;
  var retries = 0;
  var retryTimer = null;
  var needsSignIn = false;

  function readJson(key, fallback) {
    try {
      var value = JSON.parse(window.localStorage.getItem(key));
      return value === null ? fallback : value;
    } catch (error) {
      return fallback;
    }
  }

  function saveQueue() {
    window.localStorage.setItem(QUEUE_KEY, JSON.stringify(queue));
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in values ? values[name] : whole;
    });
  }

  function count(n, one, other) {
    return fill(n === 1 ? one : other, { n: n });
  }

  // Rows

  function trailRow(trailId) {
    return document.getElementById("trail-" + trailId);
  }

  function target(trailId, activity) {
    var row = trailRow(trailId);
    if (!row || !activity) return row;
    var found = null;
    row.querySelectorAll(".board-activity").forEach(function (item) {
      if (item.getAttribute("data-activity") === activity) found = item;
    });
    return found;
  }

  function ownTaps(element) {
    return Array.prototype.filter.call(element.querySelectorAll(".taps"), function (taps) {
      return taps.parentElement === element;
    })[0];
  }

  function ownSync(element) {
    return Array.prototype.filter.call(element.querySelectorAll("[data-role=sync]"), function (sync) {
      return sync.closest(".board-activity, .board-trail") === element;
    })[0];
  }

  function showStatus(element, status) {
    if (!element) return;
    element.setAttribute("data-status", status);
    var taps = ownTaps(element);
    if (!taps) return;
    taps.querySelectorAll(".tap").forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-status") === status));
    });
  }

  function showSync(element, state, text) {
    if (!element) return;
    var sync = ownSync(element);
    element.setAttribute("data-sync", state);
    if (sync) sync.textContent = text || "";
  }

  // A trail set Closed closes its activities, and Open or Caution sets its Closed ones to
  // that status (the web app's rule), shown before the answer.
  function showTap(trailId, activity, status) {
    showStatus(target(trailId, activity), status);
    var row = trailRow(trailId);
    if (row && !activity) {
      row.querySelectorAll(".board-activity").forEach(function (item) {
        if (status === "Closed" || item.getAttribute("data-status") === "Closed") showStatus(item, status);
      });
    }
  }

  function queuedTargets() {
    var keys = {};
    queue.forEach(function (entry) {
      (entry.targets || []).forEach(function (key) {
        keys[key] = true;
      });
    });
    return keys;
  }

  // The server's truth for some trails, except where a change is still queued.
  function showServer(trails) {
    var queued = queuedTargets();
    trails.forEach(function (trail) {
      var row = trailRow(trail.id);
      if (!row) return;
      if (!queued[trail.id + "|"]) showStatus(row, trail.status);
      Object.keys(trail.activities).forEach(function (value) {
        if (!queued[trail.id + "|" + value]) showStatus(target(trail.id, value), trail.activities[value]);
      });
      row.classList.toggle("is-unconfirmed", trail.unconfirmed);
      if (!trail.unconfirmed) {
        var note = row.querySelector(".unconfirmed-note");
        if (note) note.remove();
      }
      showConfirmed(row, trail);
    });
  }

  // "Last confirmed 10:42 by ...", as the server words it ("Never confirmed" is said once).
  function showConfirmed(row, trail) {
    var note = row.querySelector(".confirmed-note");
    if (!trail.confirmedOn && row.querySelector(".unconfirmed-note")) {
      if (note) note.remove();
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.className = "confirmed-note";
      ownTaps(row).after(note);
    }
    note.textContent = trail.confirmed;
  }

  // The queue

  // A button's status, without the note of what it does to the activities.
  function buttonLabel(button) {
    return button.firstChild ? button.firstChild.textContent : "";
  }

  function describe(button) {
    var row = button.closest(".board-trail");
    var name = row ? row.querySelector(".trail-name").textContent : "";
    var activity = button.closest(".board-activity");
    var label = buttonLabel(button);
    if (activity) name += ", " + activity.querySelector(".activity-name").textContent;
    return name + ": " + label;
  }

  function checked() {
    return Array.prototype.map.call(form.querySelectorAll("input[name=trails]:checked"), function (box) {
      return box.value;
    });
  }

  function entryFor(button) {
    var name = button.name;
    var value = button.value;
    if (name === "tap") {
      var parts = value.split("|");
      return {
        fields: [["tap", value]],
        targets: [parts[0] + "|" + parts[1]],
        tap: { trail: parts[0], activity: parts[1], status: parts[2] },
        label: describe(button),
      };
    }
    var trails = name === "confirm" && value === "all" ? [] : checked();
    if (!trails.length && !(name === "confirm" && value === "all")) {
      window.alert(t.select_first);
      return null;
    }
    var fields = [[name, value]].concat(trails.map(function (id) { return ["trails", id]; }));
    var label = name === "bulk"
      ? fill(t.bulk_label, { status: buttonLabel(button), n: trails.length })
      : value === "all" ? t.confirm_all_label : fill(t.confirm_label, { n: trails.length });
    return {
      fields: fields,
      targets: name === "bulk" ? trails.map(function (id) { return id + "|"; }) : [],
      bulk: name === "bulk" ? { trails: trails, status: value } : null,
      label: label,
    };
  }

  function enqueue(entry) {
    lastDone = "";
    entry.id = Date.now() + "-" + Math.random().toString(36).slice(2);
    entry.state = "pending";
    // A later tap on the same trail or activity replaces the one still waiting.
    if (entry.tap) {
      queue = queue.filter(function (old) {
        return !(old.tap && old.state === "pending" && old.targets[0] === entry.targets[0]);
      });
    }
    queue.push(entry);
    saveQueue();
    showQueued(entry);
    render();
    flush();
  }

  function showQueued(entry) {
    if (entry.tap) {
      showTap(entry.tap.trail, entry.tap.activity, entry.tap.status);
      showSync(target(entry.tap.trail, entry.tap.activity), entry.state, entry.state === "failed" ? t.failed : t.pending);
    }
    if (entry.bulk) {
      entry.bulk.trails.forEach(function (id) {
        showTap(id, "", entry.bulk.status);
        showSync(trailRow(id), entry.state, entry.state === "failed" ? t.failed : t.pending);
      });
    }
  }

  function render() {
    var pending = queue.filter(function (entry) { return entry.state === "pending"; }).length;
    var failed = queue.filter(function (entry) { return entry.state === "failed"; });
    var lines = [];
    if (pending) lines.push(count(pending, t.pending_one, t.pending_other));
    if (needsSignIn) lines.push(t.sign_in_again);
    if (failed.length) lines.push(count(failed.length, t.failed_one, t.failed_other));
    syncLine.hidden = false;
    syncLine.textContent = lines.length ? lines.join(" ") : (t.all_saved + " " + lastDone).trim();
    syncLine.setAttribute("data-state", failed.length ? "failed" : pending ? "pending" : "saved");
    failures.replaceChildren();
    failed.forEach(function (entry) {
      var item = document.createElement("li");
      item.appendChild(document.createTextNode(entry.label + " \u2013 " + entry.error + " "));
      item.appendChild(failureButton(t.retry, function () {
        entry.state = "pending";
        delete entry.error;
        saveQueue();
        showQueued(entry);
        render();
        flush();
      }));
      item.appendChild(failureButton(t.dismiss, function () {
        queue = queue.filter(function (other) { return other !== entry; });
        saveQueue();
        render();
        refresh();
      }));
      failures.appendChild(item);
    });
    failures.hidden = !failed.length;
  }

  function failureButton(text, onClick) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = text;
    button.addEventListener("click", onClick);
    return button;
  }

  function token() {
    return form.querySelector("input[name=csrfmiddlewaretoken]").value;
  }

  function send(entry) {
    var body = new URLSearchParams();
    body.append("csrfmiddlewaretoken", token());
    entry.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    return fetch(form.action || window.location.pathname, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": token() },
    });
  }

  function settled(entry, answer) {
    queue = queue.filter(function (other) { return other !== entry; });
    saveQueue();
    showServer(answer.trails || []);
    // A confirmation or a change of the checked trails answers in words ("Confirmed 109
    // trails at 10:42."); a tap answers on its own row.
    if (!entry.tap && answer.done) lastDone = answer.done;
    (entry.targets || []).forEach(function (key) {
      var parts = key.split("|");
      if (!queuedTargets()[key]) showSync(target(parts[0], parts[1]), "saved", t.saved);
    });
    if (!entry.targets.length) {
      form.querySelectorAll("input[name=trails]:checked").forEach(function (box) { box.checked = false; });
    }
  }

  function refused(entry, message) {
    entry.state = "failed";
    entry.error = message;
    saveQueue();
    showQueued(entry);
  }

  function later() {
    window.clearTimeout(retryTimer);
    retryTimer = window.setTimeout(flush, RETRY_MS[Math.min(retries, RETRY_MS.length - 1)]);
    retries += 1;
  }

  // Posts the pending changes one at a time, in the order they were made (the later wins).
  function flush() {
    if (flushing) return;
    var entry = queue.filter(function (e) { return e.state === "pending"; })[0];
    if (!entry) {
      render();
      return;
    }
    flushing = true;
    send(entry)
      .then(function (response) {
        var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
        if (!json) {
          // Signed out (the login page came back): kept until the person signs in again.
          needsSignIn = true;
          throw new Error("not signed in");
        }
        needsSignIn = false;
        return response.json().then(function (answer) {
          var said = answer.error && answer.error.message;
          if (response.ok) settled(entry, answer);
          else if (response.status >= 500) throw new Error(said || "server error");
          else refused(entry, said || String(response.status));
        });
      })
      .then(function () {
        retries = 0;
        flushing = false;
        render();
        if (queue.some(function (e) { return e.state === "pending"; })) flush();
        else refresh();
      })
      .catch(function () {
        flushing = false;
        render();
        later();
      });
  }

  // The server's truth: every trail, read when nothing is waiting to be sent and the board
  // is on screen (a phone in a pocket spends no data on it).
  function refresh() {
    if (document.visibilityState === "hidden") return;
    if (flushing || queue.some(function (e) { return e.state === "pending"; })) return;
    var query = new URLSearchParams(window.location.search);
    query.set("format", "json");
    fetch(window.location.pathname + "?" + query.toString(), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (answer) {
        window.localStorage.setItem(STATE_KEY, JSON.stringify(answer));
        showServer(answer.trails);
      })
      .catch(function () {});
  }

  // A tap, a change of the checked trails or a confirmation: queued instead of posted.
  form.addEventListener("submit", function (event) {
    var button = event.submitter;
    if (!button || !button.name) return;
    event.preventDefault();
    var entry = entryFor(button);
    if (entry) enqueue(entry);
  });

  // The search box filters as one types; its form still searches on the server.
  var search = document.getElementById("board-search");
  search.addEventListener("input", function () {
    var words = search.value.trim().toLowerCase();
    document.querySelectorAll(".board-group").forEach(function (group) {
      var shown = 0;
      group.querySelectorAll(".board-trail").forEach(function (row) {
        var match = !words || row.querySelector(".trail-name").textContent.toLowerCase().indexOf(words) >= 0;
        row.hidden = !match;
        if (match) shown += 1;
      });
      group.hidden = !shown;
    });
  });

  // A copy of this page and its files for a reload without a connection (the worker answers
  // from it only when the network does not).
  function keepOfflineCopy() {
    if (!("serviceWorker" in navigator) || !window.caches) return;
    navigator.serviceWorker
      .register(board.getAttribute("data-worker"))
      .then(function () { return navigator.serviceWorker.ready; })
      .then(function () { return window.caches.open("status-board"); })
      .then(function (cache) {
        var files = Array.prototype.map.call(
          document.querySelectorAll("link[rel=stylesheet], script[src]"),
          function (element) { return element.href || element.src; }
        );
        return cache.addAll([window.location.pathname + window.location.search].concat(files));
      })
      .catch(function () {});
  }

  // What the server last said, when it is newer than this copy of the page, then the queue.
  var stored = readJson(STATE_KEY, null);
  if (stored && stored.at > board.getAttribute("data-rendered-at")) showServer(stored.trails);
  queue.forEach(showQueued);
  render();
  document.addEventListener("visibilitychange", refresh);
  window.addEventListener("online", function () {
    retries = 0;
    flush();
  });
  window.setInterval(function () {
    if (queue.some(function (e) { return e.state === "pending"; })) flush();
    else refresh();
  }, REFRESH_MS);
  keepOfflineCopy();
  flush();
})();
