// main.js - the app's shell: header (who, role, quotas, theme; the name
// opens the account page with the API tokens), banners
// (server unreachable, no worker, no GPU worker), and a hash router that
// mounts one page at a time into <main>.
//
// Pages are modules with `render(ctx)` returning {el, title, destroy?, update?}.
// The path and the sign-in pages are in the first load; the others (editor,
// KaTeX, admin) are loaded when first visited.
import "./styles.css";
import { connection } from "./api.js";
import { h, replace } from "./dom.js";
import { duration, quotaLeft } from "./format.js";
import { addGpuWorkerSteps } from "./gpuhelp.js";
import * as authPage from "./pages/auth.js";
import * as pathPage from "./pages/path.js";
import { session } from "./session.js";
import { currentTheme, toggleTheme } from "./theme.js";

const ROUTES = [
  { re: /^\/$/, page: () => pathPage, nav: "path" },
  { re: /^\/signin$/, page: () => authPage, mode: "signin" },
  { re: /^\/signup$/, page: () => authPage, mode: "signup" },
  { re: /^\/p\/([a-z0-9-]+)(?:\/(statement|history|leaderboard))?$/, page: () => import("./pages/problem.js"), nav: "path", keys: ["id", "tab"] },
  { re: /^\/s\/([0-9]+)$/, page: () => import("./pages/submission.js"), keys: ["id"], auth: true },
  { re: /^\/history$/, page: () => import("./pages/history.js"), nav: "history", auth: true },
  { re: /^\/teach$/, page: () => import("./pages/teach.js"), nav: "teach", auth: true, role: "instructor" },
  { re: /^\/admin$/, page: () => import("./pages/admin.js"), nav: "admin", auth: true, role: "admin" },
  { re: /^\/account$/, page: () => import("./pages/account.js"), nav: "account", auth: true },
];

const app = document.getElementById("app");
const header = h("header", { class: "top" });
const banners = h("div", { class: "banners", role: "status", "aria-live": "polite" });
const main = h("main", { id: "main", tabindex: "-1" });
replace(app, header, banners, main, h("footer", null, "Blockwise: GPU kernels, judged on real hardware"));

let current = null; /* {route, key, page} */
let rendering = 0;

export function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function parse() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, q] = raw.split("?");
  return { path: path || "/", query: new URLSearchParams(q || "") };
}

async function route() {
  const { path, query } = parse();
  const r = ROUTES.find((x) => x.re.test(path));
  const token = ++rendering;
  if (!r) return mount(null, notFound("There is no page at " + path + "."));
  const m = r.re.exec(path);
  const params = {};
  (r.keys || []).forEach((k, i) => (params[k] = m[i + 1]));
  if (r.auth && !session.me) {
    location.replace("#/signin?next=" + encodeURIComponent(path));
    return;
  }
  setNav(r.nav);
  if (r.role && !session.atLeast(r.role)) return mount(null, notFound(`This page is for ${r.role}s.`));
  const ctx = { path, params, query, mode: r.mode, session, navigate };
  /* Same page module and same key (a problem's tabs): let it update in place. */
  const key = r.re.source + "|" + (params.id || "") + "|" + (r.mode || "");
  if (current && current.key === key && current.page.update && current.page.update(ctx)) return;
  unmount();
  replace(main, h("p", { class: "loading" }, "Loading…"));
  let page;
  try {
    const mod = await r.page();
    page = await mod.render(ctx);
  } catch (e) {
    page = { el: problemBox(e), title: "Error" };
  }
  if (token !== rendering) {
    if (page.destroy) page.destroy();
    return;
  }
  mount(key, page);
}

function unmount() {
  if (current && current.page.destroy) current.page.destroy();
  current = null;
}

function mount(key, page) {
  unmount();
  current = { key, page };
  replace(main, page.el);
  main.className = page.wide ? "wide" : "";
  document.title = (page.title ? page.title + " · " : "") + "Blockwise";
  if (!main.contains(document.activeElement)) main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  if (page.mounted) page.mounted();
}

function notFound(text) {
  return { el: h("div", { class: "card" }, h("h1", null, "Not here"), h("p", null, text), h("a", { href: "#/" }, "Back to the path")), title: "Not found" };
}

function problemBox(e) {
  const offline = e && e.code === "network";
  return h(
    "div",
    { class: "card" },
    h("h1", null, offline ? "The server is not answering" : "Something went wrong"),
    h("p", { class: "error" }, (e && e.message) || String(e)),
    h("button", { onclick: () => route() }, "Try again"),
  );
}

/* ---- the header ----------------------------------------------------------- */
let navCurrent = null;
function setNav(name) {
  navCurrent = name || null;
  renderHeader();
}

/* "115 Runs left this hour": what is left, not "Run 115/120", which reads as
 * well as 115 used; the limit and the sliding window are in the title. */
function quotaChip(label, w, title) {
  const cls = w.remaining === 0 ? "none" : w.remaining <= Math.max(1, Math.floor(w.limit / 5)) ? "low" : "";
  return h("span", { class: cls, title, dataset: { quota: label.toLowerCase() } }, quotaLeft(label, w));
}

function renderHeader() {
  const me = session.me;
  const link = (href, name, text) => h("a", { href, "aria-current": navCurrent === name ? "page" : null }, text);
  const nav = h(
    "nav",
    { class: "nav", "aria-label": "Main" },
    link("#/", "path", "Path"),
    me ? link("#/history", "history", "My submissions") : null,
    session.atLeast("instructor") ? link("#/teach", "teach", "Teach") : null,
    session.atLeast("admin") ? link("#/admin", "admin", "Admin") : null,
  );
  const theme = currentTheme();
  const themeBtn = h(
    "button",
    {
      class: "theme",
      "aria-label": theme === "dark" ? "Switch to the light theme" : "Switch to the dark theme",
      title: theme === "dark" ? "Light theme" : "Dark theme",
      onclick: () => {
        toggleTheme();
        renderHeader();
      },
    },
    theme === "dark" ? "☀" : "☾",
  );
  let who;
  if (me) {
    const q = me.quota;
    const win = (w, what) =>
      `${what}: ${w.used} of ${w.limit} used in the last ${duration(w.window_seconds)}` +
      (w.used && w.resets_in_seconds ? `; one more in ${duration(w.resets_in_seconds)}` : "");
    who = h(
      "div",
      { class: "who" },
      h(
        "div",
        { class: "quota", "aria-label": "Remaining quotas" },
        quotaChip("Run", q.run, win(q.run, "Runs")),
        quotaChip("Submit", q.submit, win(q.submit, "Submits")),
        h(
          "span",
          {
            title:
              `Submissions waiting or being judged: ${q.in_flight.used} of at most ${q.in_flight.limit}` +
              (q.in_flight.waiting_for_gpu && !q.in_flight.waiting_counted
                ? `; ${q.in_flight.waiting_for_gpu} more compiled and waiting for a GPU, not counted while no GPU worker is connected`
                : "") +
              (q.in_flight.waiting_for_language
                ? `; ${q.in_flight.waiting_for_language} more waiting for a worker that compiles their language (Triton), not counted while none is connected`
                : ""),
            dataset: { quota: "in-flight" },
          },
          `In flight ${q.in_flight.used}/${q.in_flight.limit}`,
          q.in_flight.waiting_for_gpu && !q.in_flight.waiting_counted ? h("span", { class: "muted", dataset: { quota: "parked" } }, ` · ${q.in_flight.waiting_for_gpu} wait for a GPU`) : null,
          q.in_flight.waiting_for_language ? h("span", { class: "muted", dataset: { quota: "parked-language" } }, ` · ${q.in_flight.waiting_for_language} wait for a Triton worker`) : null,
        ),
      ),
      h(
        "a",
        { class: "user", href: "#/account", title: "Your account and API tokens", "aria-current": navCurrent === "account" ? "page" : null },
        h("strong", { "data-user": me.user.name, title: me.user.name }, me.user.name),
        " ",
        h("span", { class: "role" }, me.user.role),
      ),
      themeBtn,
      h(
        "button",
        {
          onclick: async () => {
            try {
              await session.signout();
            } catch (e) {
              /* signed out locally anyway */
            }
            navigate("#/signin");
          },
        },
        "Sign out",
      ),
    );
  } else {
    who = h("div", { class: "who" }, themeBtn, h("a", { class: "button", href: "#/signin" }, "Sign in"), h("a", { class: "button primary", href: "#/signup" }, "Sign up"));
  }
  replace(header, h("a", { class: "brand", href: "#/" }, h("img", { src: "/favicon.svg", alt: "" }), "Blockwise"), nav, who);
  renderBanners();
}

/* "How an admin adds a GPU worker", folded; it stays open across the
 * banners' redraws (every status refresh) once opened. */
let helpOpen = false;
function addWorkerHelp() {
  const d = h(
    "details",
    { class: "help", dataset: { help: "add-gpu-worker" }, open: helpOpen || null },
    h("summary", null, "How an admin adds a GPU worker"),
    addGpuWorkerSteps(location.origin),
  );
  d.addEventListener("toggle", () => (helpOpen = d.open));
  return d;
}

function renderBanners() {
  const out = [];
  if (connection.state === "down")
    out.push(
      h(
        "div",
        { class: "banner bad", "data-banner": "offline" },
        "The Blockwise server is not answering. Your code is kept in this browser; the page reconnects by itself when the server is back.",
      ),
    );
  const st = session.status;
  if (session.me && st && connection.state === "up") {
    if (st.workers.alive === 0)
      out.push(
        h(
          "div",
          { class: "banner warn", "data-banner": "no-worker" },
          h(
            "p",
            null,
            "This server has no judge worker connected. Runs and Submits are kept in the queue" +
              (st.queue.queued ? ` (${st.queue.queued} waiting)` : "") +
              " and judged, in order, when a worker connects.",
          ),
          addWorkerHelp(),
        ),
      );
    else if (st.workers.gpu === 0)
      out.push(
        h(
          "div",
          { class: "banner warn", "data-banner": "no-gpu" },
          h(
            "p",
            null,
            h("strong", null, "This server has no GPU worker connected."),
            " Runs and Submits are compiled now (compile errors come back at once), then wait for a GPU" +
              (st.queue.waiting_for_gpu ? ` (${st.queue.waiting_for_gpu} waiting)` : "") +
              ". Keep editing and running meanwhile, and cancel what you no longer need: what waits is judged, in order, when a GPU worker connects.",
          ),
          addWorkerHelp(),
        ),
      );
  }
  replace(banners, out);
}

session.on(() => renderHeader());
connection.on(async (state) => {
  renderBanners();
  if (state !== "up") return;
  await session.load().catch(() => {});
  /* Pages that hold work (the editor, a live result) reconnect by
   * themselves; the others are simply drawn again. */
  if (current && !current.page.keep) route();
});
window.addEventListener("hashchange", route);
/* The skip link: the hash is the router's, so focus <main> by hand. */
const skip = document.querySelector(".skip");
if (skip)
  skip.addEventListener("click", (ev) => {
    ev.preventDefault();
    main.focus();
  });

(async () => {
  renderHeader();
  try {
    await session.load();
  } catch (e) {
    /* the banner says the server is down; pages show their own errors */
  }
  session.startPolling();
  route();
})();
