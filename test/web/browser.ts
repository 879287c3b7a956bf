import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { packagePath } from '../../src/kernel/package-root.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core's WCAG 2.0/2.1 level A and AA rules on the page as it is now (or only `rules`, on
 * the elements `within` selects) and answers one line per violation (rule, impact, the elements).
 * Evaluated through the DevTools protocol, so the page's own Content-Security-Policy and Trusted
 * Types are left as they are.
 */
export async function accessibilityViolations(
  page: Page,
  { within, rules }: { within?: string; rules?: string[] } = {},
): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] };
  const violations = await page.evaluate<Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>>(
    `axe.run(${within ? JSON.stringify({ include: [within] }) : 'document'}, { runOnly: ${JSON.stringify(runOnly)} }).then((result) => result.violations)`,
  );
  return violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

/** Debian's chromium package (CI installs it); playwright-core never downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = packagePath('test-artifacts/web');

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab; `errors` collects page errors, `violations` Content-Security-Policy reports, `requests` every URL asked for. */
  page(): Promise<{ page: Page; errors: string[]; violations: string[]; requests: string[] }>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** Headless chromium with a fresh profile and no background networking: only loopback is ever contacted. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'aiops-chromium-'));
  await mkdir(ARTIFACTS, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 860 },
  });
  context.setDefaultTimeout(20_000);
  return {
    context,
    async page() {
      const page = await context.newPage();
      const errors: string[] = [];
      const violations: string[] = [];
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        // Failed loads (a refused image, a 4xx the page handles) are reported as console errors too.
        if (/Content Security Policy|Trusted Type/i.test(message.text())) violations.push(message.text());
        else if (!/Failed to load resource/.test(message.text())) errors.push(message.text());
      });
      return { page, errors, violations, requests };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
