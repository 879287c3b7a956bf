/** Throws unless the component allow-list names only its own components and has no cycle (see component-graph.js). */
export function assertComponentDag(imports: Record<string, readonly string[]>): void;
