// session.js - who is signed in (GET /api/me: user, role, quota) and the
// judging capacity (GET /api/status), shared by the header and the pages.
// Listeners hear every change.
import { ApiError, get, post, setCsrf } from "./api.js";

const ROLES = ["learner", "instructor", "admin"];
const STATUS_EVERY_MS = 10000;
const ME_EVERY_MS = 30000;

export const session = {
  me: null /* {user: {id, name, role}, quota} or null */,
  status: null /* /api/status, or null when unknown */,
  listeners: new Set(),
  timers: [],

  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  },
  emit() {
    for (const fn of this.listeners) fn(this);
  },
  get user() {
    return this.me ? this.me.user : null;
  },
  atLeast(role) {
    return !!this.me && ROLES.indexOf(this.me.user.role) >= ROLES.indexOf(role);
  },

  /* Reads /api/me; a 401 means signed out. Other failures keep what we had. */
  async load() {
    try {
      const r = await get("/me");
      this.me = { user: r.user, quota: r.quota };
      setCsrf(r.csrf);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 401) throw e;
      this.me = null;
      setCsrf(null);
    }
    this.emit();
    if (this.me) this.refreshStatus();
    return this.me;
  },
  async signin(name, password, signup) {
    const r = await post(signup ? "/auth/signup" : "/auth/signin", { name, password });
    setCsrf(r.csrf);
    return this.load();
  },
  async signout() {
    try {
      await post("/auth/signout");
    } finally {
      this.me = null;
      this.status = null;
      setCsrf(null);
      this.emit();
    }
  },
  setQuota(q) {
    if (this.me && q) {
      this.me.quota = q;
      this.emit();
    }
  },
  async refreshStatus() {
    if (!this.me) return;
    try {
      this.status = await get("/status");
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return this.load().catch(() => {});
      this.status = null;
    }
    this.emit();
  },
  /* Keeps the quota and the status fresh while the page is visible. */
  startPolling() {
    const tick = (fn, ms) => {
      const id = setInterval(() => {
        if (document.visibilityState === "visible" && this.me) fn();
      }, ms);
      this.timers.push(id);
    };
    tick(() => this.refreshStatus(), STATUS_EVERY_MS);
    tick(() => this.load().catch(() => {}), ME_EVERY_MS);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && this.me) this.refreshStatus();
    });
  },
};
