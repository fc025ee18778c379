"use strict";
// Forms from an action's payload JSON Schema, and the payload read back from a filled form.
// Every input is named after its schema property (nested objects: "parent.child") and labelled;
// texts from the schema are set with textContent. The server validates again: this only spares
// a round trip for the plain mistakes (a missing field, a number out of bounds).

const PlayForms = (() => {
  let counter = 0;

  function resolve(schema, root) {
    if (!schema || typeof schema !== "object") return {};
    if (schema.$ref && typeof schema.$ref === "string") {
      const name = schema.$ref.split("/").pop();
      const target = (root.$defs || root.definitions || {})[name] || {};
      const rest = Object.assign({}, schema);
      delete rest.$ref;
      return Object.assign({}, target, rest);
    }
    const options = schema.anyOf || schema.oneOf;
    if (Array.isArray(options)) {
      const real = options.filter((o) => o && o.type !== "null");
      if (real.length === 1) return Object.assign({}, resolve(real[0], root), { description: schema.description });
    }
    return schema;
  }

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== undefined && value !== null) node.setAttribute(name, String(value));
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function labelOf(name, schema) {
    return schema.title || name.split(".").pop().replace(/_/g, " ");
  }

  // One labelled field (or a fieldset for a nested object) for property `name`.
  function field(name, schema, root, required) {
    const s = resolve(schema, root);
    if (s.type === "object" && s.properties) {
      const set = element("fieldset", { "data-object": name });
      set.appendChild(element("legend", {}, labelOf(name, s)));
      const needed = new Set(s.required || []);
      for (const [child, sub] of Object.entries(s.properties)) {
        set.appendChild(field(`${name}.${child}`, sub, root, needed.has(child)));
      }
      return set;
    }
    const id = `f${++counter}`;
    const wrap = element("div", { class: "field" });
    const label = element("label", { for: id }, labelOf(name, s));
    let input;
    if (Array.isArray(s.enum)) {
      input = element("select", { id, name });
      if (!required) input.appendChild(element("option", { value: "" }, "(none)"));
      s.enum.forEach((value, i) => input.appendChild(element("option", { value: String(i) }, String(value))));
    } else if (s.type === "boolean") {
      input = element("input", { id, name, type: "checkbox" });
      wrap.classList.add("check");
    } else if (s.type === "integer" || s.type === "number") {
      input = element("input", {
        id,
        name,
        type: "number",
        inputmode: s.type === "integer" ? "numeric" : "decimal",
        step: s.type === "integer" ? "1" : s.multipleOf || "any",
        min: s.minimum,
        max: s.maximum,
      });
    } else if (s.type === "array") {
      input = element("input", { id, name, type: "text", placeholder: "values separated by commas" });
    } else {
      input = element("input", { id, name, type: "text", maxlength: s.maxLength, minlength: s.minLength });
    }
    if (required && s.type !== "boolean") input.required = true;
    wrap.append(label, input);
    if (s.description) {
      const hint = element("small", { id: `${id}-hint`, class: "hint" }, s.description);
      input.setAttribute("aria-describedby", hint.id);
      wrap.appendChild(hint);
    }
    return wrap;
  }

  // The form of one allowed action: data-action, a field per property, a submit button, an alert.
  function build(action) {
    const schema = action.payload_schema || {};
    const form = element("form", { "data-action": action.name, novalidate: "" });
    form.appendChild(element("h3", {}, action.name.replace(/_/g, " ")));
    if (action.description) form.appendChild(element("p", { class: "hint" }, action.description));
    const root = resolve(schema, schema);
    const needed = new Set(root.required || []);
    for (const [name, sub] of Object.entries(root.properties || {})) {
      form.appendChild(field(name, sub, schema, needed.has(name)));
    }
    const named = action.name.replace(/_/g, " ") + (action.effect ? `: ${action.effect}` : "");
    const label = action.remaining === null || action.remaining === undefined
      ? named
      : `${named} (${action.remaining} left)`;
    form.appendChild(element("button", { type: "submit" }, label));
    form.appendChild(element("p", { role: "alert", class: "refusal", hidden: "" }));
    return form;
  }

  // The payload a filled form means, or the first problem with it in plain words.
  function read(form, schema) {
    const problems = [];
    const payload = collect(form, "", resolve(schema, schema), schema, problems, true);
    return { payload: payload === undefined ? {} : payload, problems };
  }

  function collect(form, name, s, root, problems, required) {
    if (s.type === "object" && s.properties || name === "") {
      const out = {};
      const needed = new Set(s.required || []);
      for (const [child, sub] of Object.entries(s.properties || {})) {
        const value = collect(form, name ? `${name}.${child}` : child, resolve(sub, root), root, problems,
          needed.has(child));
        if (value !== undefined) out[child] = value;
      }
      return out;
    }
    const input = form.elements.namedItem(name);
    if (!input) return undefined;
    const label = labelOf(name, s);
    if (s.type === "boolean") return input.checked;
    const raw = input.value.trim();
    if (raw === "") {
      if (required) problems.push(`${label}: please fill this in.`);
      return undefined;
    }
    if (Array.isArray(s.enum)) return s.enum[Number(raw)];
    if (s.type === "integer" || s.type === "number") {
      const value = Number(raw);
      if (!Number.isFinite(value) || (s.type === "integer" && !Number.isInteger(value))) {
        problems.push(`${label}: ${s.type === "integer" ? "a whole number" : "a number"}, please.`);
        return undefined;
      }
      if (s.minimum !== undefined && value < s.minimum) problems.push(`${label}: at least ${s.minimum}.`);
      if (s.maximum !== undefined && value > s.maximum) problems.push(`${label}: at most ${s.maximum}.`);
      return value;
    }
    if (s.type === "array") {
      const items = resolve(s.items || {}, root);
      const parts = raw.split(",").map((p) => p.trim()).filter((p) => p !== "");
      return items.type === "integer" || items.type === "number" ? parts.map(Number) : parts;
    }
    return raw;
  }

  return { build, read, resolve };
})();
