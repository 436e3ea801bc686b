// api.js - the server's JSON API (docs/api.md) and the connection state.
//
// Every call goes through api(): it sends the session's CSRF token on changes,
// turns error bodies into ApiError (status, code, field, message, retryAfter)
// and tells `connection` whether the server answered. When it does not, the
// connection watcher polls /api/health until it does and every listener hears
// of both changes (the header shows a banner meanwhile).
let csrfToken = null;

export function setCsrf(token) {
  csrfToken = token || null;
}

export class ApiError extends Error {
  constructor(status, code, message, field = null, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

/* Whether the server answers: "up", "down" (no answer, or a proxy's 502-504). */
export const connection = {
  state: "up",
  listeners: new Set(),
  timer: null,
  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  },
  set(state) {
    if (state === this.state) return;
    this.state = state;
    for (const fn of this.listeners) fn(state);
    if (state === "down") this.watch();
  },
  watch() {
    if (this.timer) return;
    const poll = async () => {
      try {
        const r = await fetch("/api/health", { cache: "no-store" });
        if (r.ok) {
          this.timer = null;
          this.set("up");
          return;
        }
      } catch (e) {
        /* still down */
      }
      this.timer = setTimeout(poll, 3000);
    };
    this.timer = setTimeout(poll, 1500);
  },
};

export async function api(method, path, body, opts = {}) {
  const headers = { Accept: "application/json", ...(opts.headers || {}) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  let res;
  try {
    res = await fetch("/api" + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (e) {
    connection.set("down");
    throw new ApiError(0, "network", "cannot reach the server");
  }
  const type = res.headers.get("Content-Type") || "";
  const isJson = type.startsWith("application/json");
  if (!isJson && res.status >= 502 && res.status <= 504) {
    connection.set("down");
    throw new ApiError(res.status, "network", "the server is not answering (" + res.status + " from a proxy)");
  }
  connection.set("up");
  if (res.status === 204) return null;
  if (opts.text) {
    if (!res.ok) throw await errorOf(res, isJson);
    return res.text();
  }
  if (!res.ok) throw await errorOf(res, isJson);
  return isJson ? res.json() : res.text();
}

async function errorOf(res, isJson) {
  let e = null;
  if (isJson) {
    try {
      e = (await res.json()).error;
    } catch (x) {
      e = null;
    }
  }
  const retry = res.headers.get("Retry-After");
  return new ApiError(
    res.status,
    (e && e.code) || "http_" + res.status,
    (e && e.message) || "the server answered " + res.status,
    (e && e.field) || null,
    retry ? Number(retry) : null,
  );
}

/* A new Idempotency-Key: 32 hex digits from the browser's CSPRNG (which,
 * unlike crypto.randomUUID, a page served over plain HTTP also has). */
function newKey() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return "web-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export const POST_ATTEMPTS = 3;

/* POSTs what must be made once (a submission) with an Idempotency-Key, and
 * sends it again with the same key when no answer came (a dropped
 * connection: the server may have made it) or a proxy or the server said it
 * is away (502-504, 503), 1 and then 2 s later. The server answers a post it
 * has seen with the submission the first one made (200), so a retry never
 * makes a second. */
export async function postOnce(path, body) {
  const key = newKey();
  for (let attempt = 0; ; attempt++) {
    try {
      return await api("POST", path, body, { headers: { "Idempotency-Key": key } });
    } catch (e) {
      const again = e instanceof ApiError && (e.code === "network" || e.status === 503);
      if (!again || attempt + 1 >= POST_ATTEMPTS) throw e;
      await new Promise((done) => setTimeout(done, 1000 << attempt));
    }
  }
}

export const get = (path, opts) => api("GET", path, undefined, opts);
export const post = (path, body) => api("POST", path, body === undefined ? {} : body);
export const del = (path) => api("DELETE", path);

/* POST /api/submissions/{id}/cancel (the owner, or an admin): the summary of
 * the cancelled submission, or an ApiError (409 "finished" when it is judged
 * or cancelled already). */
export const cancelSubmission = (id) => post(`/submissions/${encodeURIComponent(id)}/cancel`);

/*
 * Follows a submission's event stream (GET /api/submissions/{id}/events).
 * `on(name, data)` hears every event, in order: "state", "queued", "judging",
 * "compiling", "compiled", "test", "bench", "waiting_for_gpu", "requeued",
 * "done", and the stream's own "connection" ({state: "open" | "lost"}).
 * The browser reconnects by itself (sending Last-Event-ID); the stream is
 * closed after "done" (whose data.state is "done", or "cancelled" for a
 * cancelled submission) or by the returned stop().
 */
export const EVENT_NAMES = [
  "state",
  "queued",
  "judging",
  "compiling",
  "compiled",
  "test",
  "bench",
  "waiting_for_gpu",
  "requeued",
  "done",
];

export function watchSubmission(id, on) {
  const es = new EventSource(`/api/submissions/${encodeURIComponent(id)}/events`);
  let stopped = false;
  const stop = () => {
    stopped = true;
    es.close();
  };
  for (const name of EVENT_NAMES) {
    es.addEventListener(name, (ev) => {
      if (stopped) return;
      let data = {};
      try {
        data = JSON.parse(ev.data);
      } catch (e) {
        data = {};
      }
      if (name === "done") stop();
      on(name, data);
    });
  }
  es.onopen = () => !stopped && on("connection", { state: "open" });
  es.onerror = () => {
    if (stopped) return;
    on("connection", { state: es.readyState === EventSource.CLOSED ? "closed" : "lost" });
    if (es.readyState === EventSource.CLOSED) stop();
  };
  return stop;
}
