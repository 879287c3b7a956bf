/** Small DOM helpers: elements are built from nodes and text, never from HTML strings. */

export type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

/** The children worth appending: nodes and strings. */
export function present(children: Child[]): (Node | string)[] {
  return children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false);
}

/** `<tag attributes>children</tag>`; attributes that are false, null or undefined are left out, true is an empty attribute. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...present(children));
  return element;
}

/** The element with this id, of the expected class (the page's HTML and its script ship together). */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`#${id} is missing or not a ${type.name}`);
  return element;
}

/** Shows a plain message in an element, or hides it when the message is empty. */
export function say(element: HTMLElement, message: string): void {
  element.textContent = message;
  element.hidden = message === '';
}
