// A form for a new connector, built from its plugin's config definition. Every submit is first
// validated by the worker; errors show beside their fields and nothing is created until there are none.

import { api } from "../api.js";
import { connectorHref, h, put } from "../dom.js";

const COMMON_KEYS = [
  { name: "name", type: "STRING", required: true, display_name: "Name", documentation: "A name for the connector, unique in the cluster." },
  { name: "tasks.max", type: "INT", required: false, default_value: "1", display_name: "Maximum tasks", documentation: "The most tasks the connector may run." },
];
const SINK_KEYS = [
  { name: "topics", type: "LIST", required: false, display_name: "Topics", documentation: "The topics to read, comma separated (or set topics.regex below)." },
];

function input(key) {
  const attrs = { id: `field-${key.name}`, name: key.name };
  if (key.type === "BOOLEAN") {
    return h("select", attrs, h("option", { value: "" }, key.default_value ? `default (${key.default_value})` : ""),
      h("option", { value: "true" }, "true"), h("option", { value: "false" }, "false"));
  }
  return h("input", {
    ...attrs,
    type: key.type === "PASSWORD" ? "password" : "text",
    placeholder: key.default_value ?? "",
    value: key.name === "tasks.max" ? "1" : null,
    autocomplete: "off",
  });
}

function field(key) {
  return h("div", { class: "field", "data-key": key.name },
    h("label", { for: `field-${key.name}` }, key.display_name || key.name, key.required ? h("span", { class: "required", title: "required" }, " *") : null,
      " ", h("code", { class: "key" }, key.name)),
    input(key),
    key.documentation ? h("small", { class: "muted" }, key.documentation) : null,
    h("ul", { class: "field-errors" }));
}

/** `key=value` lines, as in a .properties file; blank lines and # comments are skipped. */
function parseProperties(text) {
  const config = {};
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#")) continue;
    const at = trimmed.indexOf("=");
    if (at <= 0) throw new Error(`"${trimmed}" is not key=value`);
    config[trimmed.slice(0, at).trim()] = trimmed.slice(at + 1).trim();
  }
  return config;
}

export function createView({ notify }) {
  const form = h("form", { id: "create-form", novalidate: true });
  const fields = h("div", { class: "fields" });
  const general = h("ul", { class: "form-errors", id: "form-errors" });
  const extras = h("textarea", { id: "field-extra", rows: 4, spellcheck: "false",
    placeholder: "value.converter=org.apache.kafka.connect.json.JsonConverter\nerrors.tolerance=all" });
  const pluginSelect = h("select", { id: "plugin", name: "plugin", required: true });
  let plugin = null;

  async function choose(className) {
    plugin = className;
    put(fields, h("p", { class: "muted" }, "Loading the plugin's config…"));
    put(general);
    try {
      const definition = await api.pluginConfig(className);
      if (plugin !== className) return; // Another plugin was chosen while this one's config loaded.
      const type = pluginSelect.selectedOptions[0]?.dataset.type;
      const keys = [...COMMON_KEYS, ...(type === "sink" ? SINK_KEYS : []), ...definition];
      put(fields, ...keys.map(field));
    } catch (error) {
      if (plugin !== className) return;
      put(fields, h("p", { class: "error" }, `Cannot read ${className}'s config: ${error.message}`));
    }
  }

  function collect() {
    const config = { "connector.class": plugin, ...parseProperties(extras.value) };
    for (const control of fields.querySelectorAll("input, select")) {
      if (control.value.trim() !== "") config[control.name] = control.value.trim();
    }
    return config;
  }

  function showErrors(result) {
    for (const list of form.querySelectorAll(".field-errors")) put(list);
    for (const row of form.querySelectorAll(".field")) row.classList.remove("invalid");
    put(general);
    for (const { definition, value } of result.configs) {
      if (!value.errors.length) continue;
      const name = value.name ?? definition.name;
      let row = fields.querySelector(`.field[data-key="${CSS.escape(name)}"]`);
      if (!row && definition) {
        // A key the plugin's own definition lacks (a common or transform key): give it a field too.
        row = field(definition);
        const control = row.querySelector("input, select");
        if (control && value.value !== null && value.value !== undefined) control.value = value.value;
        fields.append(row);
      }
      row.classList.add("invalid");
      row.querySelector(".field-errors").replaceChildren(...value.errors.map((e) => h("li", {}, e)));
    }
  }

  async function validate() {
    let config;
    try {
      config = collect();
    } catch (error) {
      put(general, h("li", {}, `Other properties: ${error.message}`));
      return null;
    }
    const result = await api.validate(plugin, config);
    showErrors(result);
    const status = form.querySelector("#validation");
    status.textContent = result.error_count ? `${result.error_count} error${result.error_count === 1 ? "" : "s"}: see the fields marked in red.` : "The config is valid.";
    status.className = result.error_count ? "error" : "ok";
    return result.error_count ? null : config;
  }

  async function submit(event) {
    event.preventDefault();
    if (!plugin) return;
    try {
      const config = await validate();
      if (!config) return;
      await api.create(config.name, config);
      notify(`Created ${config.name}`);
      window.location.hash = connectorHref(config.name);
    } catch (error) {
      put(general, h("li", {}, error.message));
    }
  }

  form.append(
    h("div", { class: "field" }, h("label", { for: "plugin" }, "Connector plugin"), pluginSelect),
    fields,
    h("div", { class: "field" }, h("label", { for: "field-extra" }, "Other properties (key=value lines: converters, transforms, errors.*)"), extras),
    general,
    h("p", { id: "validation", role: "status" }),
    h("div", { class: "toolbar" },
      h("button", { type: "button", "data-action": "validate", onclick: () => plugin && validate().catch((e) => put(general, h("li", {}, e.message))) }, "Validate"),
      h("button", { type: "submit", class: "primary", "data-action": "create" }, "Create connector")),
  );
  form.addEventListener("submit", submit);
  pluginSelect.addEventListener("change", () => choose(pluginSelect.value));

  return {
    title: "New connector",
    polls: false,
    async mount(root) {
      put(root, h("h2", {}, "New connector"), form);
      try {
        const plugins = await api.plugins();
        put(pluginSelect, ...plugins.map((p) => h("option", { value: p.class, dataset: { type: p.type } }, `${p.class} (${p.type})`)));
        if (plugins.length) await choose(plugins[0].class);
      } catch (error) {
        notify(`Cannot list plugins: ${error.message}`, true);
      }
    },
    update() {},
  };
}
