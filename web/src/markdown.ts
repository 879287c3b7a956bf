import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const markdown = new Marked({ gfm: true, breaks: true, async: false });

const purifier = DOMPurify(window);
// Links from a model or a tool open in a new tab and tell the target nothing about this page.
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement && node.hasAttribute('href')) {
    node.target = '_blank';
    node.rel = 'noopener noreferrer';
  }
});

/**
 * Markdown from a model or a tool as sanitized DOM nodes: marked turns it into HTML, DOMPurify
 * keeps only harmless elements and attributes (no scripts, handlers, forms or inline styles), and
 * the result is a fragment, never an HTML string assigned to the page. Tables get a scrolling
 * wrapper.
 */
export function renderMarkdown(source: string): DocumentFragment {
  const html = markdown.parse(source, { async: false });
  const fragment = purifier.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'dialog'],
    FORBID_ATTR: ['style', 'id', 'name'],
  });
  for (const table of fragment.querySelectorAll('table')) {
    const wrapper = document.createElement('div');
    wrapper.className = 'table-scroll';
    table.replaceWith(wrapper);
    wrapper.append(table);
  }
  return fragment;
}
