/**
 * Builds the web pages into `dist/web/`: each page's script and the stylesheet bundled by esbuild
 * into content-hashed files under `assets/` (no CDN: every byte is served by the API), and the
 * HTML of each page from the shared layout. `node --import tsx web/build.ts` (part of `npm run build`).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const WEB_SOURCE = path.dirname(fileURLToPath(import.meta.url));

/** Where the API serves the pages from (see api/routes/web.router.ts). */
export const WEB_OUTPUT = path.join(WEB_SOURCE, '..', 'dist', 'web');

/** The URL path the built assets are served under. */
const ASSET_URL = '/plugins/ai-ops/assets/';

interface Page {
  name: 'chat' | 'admin' | 'docs';
  title: string;
}

const PAGES: Page[] = [
  { name: 'chat', title: 'AI Ops chat' },
  { name: 'admin', title: 'AI Ops administration' },
  { name: 'docs', title: 'AI Ops API documentation' },
];

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`web/pages: no value for {{${key}}}`);
    return value;
  });
}

/** Bundles the scripts and stylesheet, then writes one HTML file per page. Resolves to the files written. */
export async function buildWeb(outDir: string = WEB_OUTPUT): Promise<string[]> {
  await rm(outDir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: WEB_SOURCE,
    entryPoints: { ...Object.fromEntries(PAGES.map((page) => [page.name, `src/${page.name}.ts`])), styles: 'src/styles.css' },
    outdir: path.join(outDir, 'assets'),
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    // light-dark(), :has() and top-level await are used as they are.
    target: ['chrome123', 'firefox120', 'safari17.5'],
    minify: true,
    sourcemap: 'linked',
    legalComments: 'eof',
    metafile: true,
    logLevel: 'silent',
  });
  const outputOf = (entry: string) => {
    const output = Object.entries(result.metafile.outputs).find(([, meta]) => meta.entryPoint === entry);
    if (!output) throw new Error(`web build: no output for ${entry}`);
    return { url: ASSET_URL + path.basename(output[0]), cssBundle: output[1].cssBundle };
  };
  // A page script that imports a stylesheet of its own (the docs page, Swagger UI's) gets it linked.
  const pageStyles = (entry: string): string => {
    const { cssBundle } = outputOf(entry);
    return cssBundle ? `\n    <link rel="stylesheet" href="${ASSET_URL + path.basename(cssBundle)}">` : '';
  };
  const layout = await readFile(path.join(WEB_SOURCE, 'pages', 'layout.html'), 'utf8');
  const written = Object.keys(result.metafile.outputs).map((output) => path.resolve(WEB_SOURCE, output));
  for (const page of PAGES) {
    const content = await readFile(path.join(WEB_SOURCE, 'pages', `${page.name}.html`), 'utf8');
    const file = path.join(outDir, `${page.name}.html`);
    await writeFile(
      file,
      fill(layout, {
        title: page.title,
        page: page.name,
        styles: outputOf('src/styles.css').url,
        page_styles: pageStyles(`src/${page.name}.ts`),
        script: outputOf(`src/${page.name}.ts`).url,
        content: content.trimEnd(),
      }),
    );
    written.push(file);
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildWeb();
  console.log(`web: ${files.length} files in ${path.relative(process.cwd(), WEB_OUTPUT) || '.'}`);
}
