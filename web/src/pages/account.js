// pages/account.js - the signed-in user's account (#/account): personal API
// tokens (GET/POST/DELETE /api/tokens), listed with when each was made and
// last used; a new token is shown once, with a copy button and the
// `blockwise login` command that stores it (cli/blockwise, docs/cli.md);
// revoking asks first. Reached from the user's name in the header.
import { del, get, post } from "../api.js";
import { h, replace, table } from "../dom.js";
import * as f from "../format.js";

const MAX_TOKENS = 20; /* BW_MAX_API_TOKENS (common/limits.h) */
const MAX_NAME = 64; /* BW_MAX_TOKEN_NAME */

/* Copies `text`; without the Clipboard API (plain HTTP off loopback), selects
 * `field` and asks the browser to copy the selection. True when copied. */
export async function copyText(text, field) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch (e) {
    /* refused: fall back to the selection */
  }
  if (!field) return false;
  field.focus();
  field.select();
  try {
    return document.execCommand("copy");
  } catch (e) {
    return false;
  }
}

/* A read-only field holding `text`, with a Copy button beside it that says
 * whether it worked. */
function copyField(id, label, text, extra) {
  const field = h("input", {
    id,
    class: "mono copy-field",
    readOnly: true,
    value: text,
    spellcheck: "false",
    "aria-describedby": `${id}-said`,
    onfocus: (ev) => ev.target.select(),
  });
  const said = h("span", { id: `${id}-said`, class: "muted small", "aria-live": "polite" });
  const btn = h(
    "button",
    {
      type: "button",
      dataset: { copy: id },
      onclick: async () => {
        const ok = await copyText(text, field);
        said.textContent = ok ? "Copied." : "Select it and press Ctrl+C (⌘C) to copy.";
      },
    },
    "Copy",
  );
  return h("div", { class: "copy-row" }, h("label", { for: id }, label), h("div", { class: "row" }, field, btn, said), extra || null);
}

/* The commands that store a token on a learner's machine. */
export function loginCommand(origin) {
  return `blockwise login --server ${origin}`;
}

export async function render(ctx) {
  const me = ctx.session.me;
  const origin = location.origin;
  const msg = h("div", { role: "alert" });
  const listBox = h("div", { dataset: { tokens: "" } });
  const shown = h("div"); /* the token just made, shown this once */
  const count = h("p", { class: "muted small" });
  const say = (text, bad) => replace(msg, h("p", { class: bad ? "error" : "notice" }, text));
  let tokens = [];

  function draw() {
    replace(count, `${tokens.length} of at most ${MAX_TOKENS} tokens.`);
    create.disabled = tokens.length >= MAX_TOKENS;
    if (!tokens.length) return replace(listBox, h("p", { class: "muted", dataset: { tokens: "none" } }, "No API tokens yet."));
    replace(
      listBox,
      table(
        ["Name", "Created", "Last used", ""],
        tokens.map((t) => ({
          attrs: { dataset: { token: String(t.id) } },
          cells: [
            h("strong", { class: "token-name" }, t.name),
            h("span", { title: f.when(t.created_at) }, f.when(t.created_at)),
            t.last_used_at ? h("span", { title: f.when(t.last_used_at) }, f.ago(t.last_used_at)) : h("span", { class: "muted" }, "never"),
            h(
              "button",
              {
                class: "small danger",
                dataset: { action: "revoke" },
                "aria-label": `Revoke the token ${t.name}`,
                onclick: () => revoke(t),
              },
              "Revoke",
            ),
          ],
        })),
        { class: "compact tokens", caption: "Your API tokens" },
      ),
    );
  }

  async function load() {
    const r = await get("/tokens");
    tokens = r.tokens || [];
    draw();
  }

  async function revoke(t) {
    if (!confirm(`Revoke the token "${t.name}"? Programs using it (blockwise on that machine) stop working at once.`)) return;
    try {
      await del(`/tokens/${encodeURIComponent(t.id)}`);
      say(`The token "${t.name}" is revoked.`);
    } catch (e) {
      say(`Could not revoke "${t.name}": ${e.message}`, true);
    }
    await load().catch(() => {});
    /* keep the keyboard where it was: on the list, or on the form when it is empty */
    (listBox.querySelector("button") || nameInput).focus();
  }

  const nameInput = h("input", {
    id: "token-name",
    required: true,
    maxlength: String(MAX_NAME),
    placeholder: "laptop",
    spellcheck: "false",
    autocomplete: "off",
  });
  const create = h("button", { type: "submit", class: "primary" }, "Create a token");
  const form = h(
    "form",
    {
      class: "row",
      dataset: { form: "new-token" },
      onsubmit: async (ev) => {
        ev.preventDefault();
        const name = nameInput.value.trim();
        if (!name) {
          say("Give the token a name: where it will be used (laptop, lab machine).", true);
          nameInput.focus();
          return;
        }
        create.disabled = true;
        replace(msg);
        try {
          const r = await post("/tokens", { name });
          nameInput.value = "";
          showOnce(r);
          await load();
        } catch (e) {
          say(`Could not create the token: ${e.message}`, true);
        } finally {
          create.disabled = tokens.length >= MAX_TOKENS;
        }
      },
    },
    h("label", { for: "token-name", style: "margin: 0" }, "New token named"),
    nameInput,
    create,
  );

  function showOnce(r) {
    const box = h(
      "div",
      { class: "notice token-once", dataset: { tokenOnce: String(r.id) }, tabindex: "-1" },
      h("p", null, h("strong", null, `The token "${r.name}" is shown this once.`), " Copy it now: the server keeps only its hash, so nobody can show it again. It acts as you until you revoke it."),
      copyField("new-token", "Your new token", r.token),
      copyField(
        "login-command",
        "Then, in a terminal, run this and paste the token when it asks",
        loginCommand(origin),
      ),
      h("div", { class: "row", style: "margin-top: 0.5rem" }, h("span", { class: "spacer" }), h("button", { type: "button", dataset: { action: "hide-token" }, onclick: () => (replace(shown), nameInput.focus()) }, "Done: hide the token")),
    );
    replace(shown, box);
    box.focus();
  }

  await load();

  const el = h(
    "div",
    { class: "account" },
    h("h1", null, "Account"),
    h("p", null, "Signed in as ", h("strong", null, me.user.name), ` (${me.user.role}).`),
    h(
      "section",
      { class: "card", "aria-labelledby": "tokens-h" },
      h("h2", { id: "tokens-h", style: "margin-top: 0" }, "API tokens"),
      h(
        "p",
        null,
        "A personal API token lets a program act as you: the ",
        h("code", null, "blockwise"),
        " command line (below), to run and submit kernels from your own terminal and editor, or your own scripts (",
        h("code", null, "Authorization: Bearer bwu_…"),
        "). Make one per machine, and revoke one you no longer use or that may have leaked.",
      ),
      msg,
      shown,
      listBox,
      form,
      count,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "cli-h" },
      h("h2", { id: "cli-h", style: "margin-top: 0" }, "From the terminal"),
      h("p", null, "The command line is one Python 3 file (Python 3.9 or newer; nothing else to install). On your machine (", h("code", null, "~/.local/bin"), " is on the PATH from the next login once it exists, on Debian and Ubuntu):"),
      h(
        "pre",
        { class: "log", dataset: { cli: "steps" } },
        [
          `curl -fsSL --create-dirs -o ~/.local/bin/blockwise ${origin}/blockwise`,
          "chmod +x ~/.local/bin/blockwise",
          loginCommand(origin),
          "blockwise problems",
          "blockwise run kernel.cu --problem vector-add",
          "blockwise submit kernel.cu --problem vector-add",
        ].join("\n"),
      ),
      h(
        "p",
        { class: "muted small" },
        h("code", null, "login"),
        " asks for a token made above. ",
        h("code", null, "run"),
        " judges the tests, ",
        h("code", null, "submit"),
        " the tests and then the timing, with the progress as it happens; compile errors come back at FILE:LINE:COL, as from a compiler, and ",
        h("code", null, "--json"),
        " prints the result for tools. ",
        h("code", null, "blockwise --help"),
        " lists every command.",
      ),
    ),
  );
  return { el, title: "Account" };
}
