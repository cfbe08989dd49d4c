/*
 * The status board's service worker: a board, and the files it loads, come from the network
 * when it answers and from the last copy kept when it does not, so a reload on the mountain
 * without a connection still shows the board and its queue of changes (kept by board.js).
 * Everything else, posts included, goes to the network untouched.
 */
"use strict";

var CACHE = "status-board";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

function isBoard(url) {
  return /\/trail-systems\/[^/]+\/board\/$/.test(url.pathname) && !url.searchParams.has("format");
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  var kept = request.mode === "navigate" ? isBoard(url) : url.pathname.indexOf("/static/") === 0;
  if (!kept) return;
  event.respondWith(
    fetch(request)
      .then(function (response) {
        if (response.ok && !response.redirected) {
          var copy = response.clone();
          caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
        }
        return response;
      })
      .catch(function () {
        return caches.match(request, { ignoreVary: true }).then(function (copy) {
          if (copy) return copy;
          throw new Error("offline, and no copy kept");
        });
      })
  );
});
