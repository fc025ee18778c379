"use strict";
// A keyboard and button layer for games that move on a map (AdaSociety): when `move` is allowed
// with a `direction` choice, buttons for each direction, and the arrow keys press them (unless the
// focus is in a field); `stay` and `produce` get buttons too. The generated forms stay usable.

const PlayPad = (() => {
  const ARROWS = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right" };
  const SIGNS = { up: "↑", down: "↓", left: "←", right: "→" };
  let perform = null;
  let directions = [];

  function render(box, actions, act) {
    const move = actions.find((a) => a.name === "move");
    const schema = move && move.payload_schema && move.payload_schema.properties;
    directions = schema && schema.direction && Array.isArray(schema.direction.enum) ? schema.direction.enum : [];
    const simple = actions.filter((a) => ["stay", "produce"].includes(a.name));
    box.replaceChildren();
    box.hidden = !directions.length;
    perform = directions.length ? act : null;
    if (!directions.length) return;
    const group = document.createElement("div");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Move (arrow keys work too)");
    for (const direction of ["up", "left", "right", "down"].filter((d) => directions.includes(d))) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `move ${direction}`;
      button.dataset.move = direction;
      button.setAttribute("aria-label", `Move ${direction}`);
      button.textContent = SIGNS[direction];
      button.addEventListener("click", () => act("move", { direction }));
      group.appendChild(button);
    }
    for (const action of simple) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.pad = action.name;
      button.textContent = action.name;
      button.addEventListener("click", () => act(action.name, {}));
      group.appendChild(button);
    }
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = "The arrow keys move you too (when no field has the focus).";
    box.append(group, hint);
  }

  document.addEventListener("keydown", (pressed) => {
    const direction = ARROWS[pressed.key];
    const target = pressed.target;
    const typing = target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
    if (!direction || typing || !perform || !directions.includes(direction)) return;
    if (pressed.altKey || pressed.ctrlKey || pressed.metaKey) return;
    pressed.preventDefault();
    perform("move", { direction });
  });

  return { render };
})();
