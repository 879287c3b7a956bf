// @ts-check

/**
 * The first import cycle among components, as the path that closes it (`a -> b -> a`), or
 * undefined when the graph is a DAG. `imports` maps each component to the components it may import.
 * @param {Record<string, readonly string[]>} imports
 * @returns {string[] | undefined}
 */
function findCycle(imports) {
  /** @type {Map<string, 'open' | 'done'>} */
  const visits = new Map();
  /** @type {string[]} */
  const path = [];
  /** @param {string} component @returns {string[] | undefined} */
  const visit = (component) => {
    if (visits.get(component) === 'done') return undefined;
    if (visits.get(component) === 'open') return [...path.slice(path.indexOf(component)), component];
    visits.set(component, 'open');
    path.push(component);
    for (const imported of imports[component] ?? []) {
      const cycle = visit(imported);
      if (cycle) return cycle;
    }
    path.pop();
    visits.set(component, 'done');
    return undefined;
  };
  for (const component of Object.keys(imports)) {
    const cycle = visit(component);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * Throws unless every component `imports` lists is one of its keys and the imports form no cycle:
 * the allow-list of the dependency rules must describe layers, lowest first.
 * @param {Record<string, readonly string[]>} imports
 */
export function assertComponentDag(imports) {
  for (const [component, allowed] of Object.entries(imports)) {
    const unknown = allowed.filter((name) => !(name in imports));
    if (unknown.length > 0)
      throw new Error(`COMPONENT_IMPORTS in eslint.config.js: ${component} may import ${unknown.join(', ')}, which is not a component`);
  }
  const cycle = findCycle(imports);
  if (cycle) throw new Error(`COMPONENT_IMPORTS in eslint.config.js: the components import each other in a cycle: ${cycle.join(' -> ')}`);
}
