import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startWorkers, type RunningWorkers } from '../../src/roles/worker.js';
import { QueueName } from '../../src/roles/job-catalogue.js';
import { silentLogger } from '../../src/kernel/logging/logger.js';
import { startChatHarness, type ChatHarness } from '../chat/chat-harness.js';
import { createRemote, type TestRemote } from '../knowledge/support/git-remote.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { CHROMIUM, launchBrowser, type TestBrowser } from './browser.js';

/** The service as the pages use it (API, chat, health and index workers), a Git remote and one browser. */
export interface WebHarness {
  sut: ChatHarness;
  /** The service's Redis (the suite's own). */
  redis: TestRedis;
  browser: TestBrowser;
  /** `acme/runbooks`, a repository the knowledge base can add. */
  remote: TestRemote;
  /** A superuser's key. */
  adminKey: string;
  /** Opens a page of the service and signs in with `key`, by keyboard only. */
  open(page: Page, which: 'chat' | 'admin', key: string, query?: string): Promise<void>;
  close(): Promise<void>;
}

/** Signs in on a page that shows the sign-in form: the token field has focus on arrival, Enter submits. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.locator('#token:focus').waitFor();
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await page.locator('#content:not([hidden])').waitFor();
}

/** Starts everything (with `env` added to the configuration), or skips the suite (with the reason) when there is no chromium. */
export async function startWebHarness(suite: Mocha.Context, extraEnv: Record<string, string> = {}): Promise<WebHarness> {
  if (!existsSync(CHROMIUM)) {
    console.log(`    skipped: ${CHROMIUM} is absent (Debian package chromium; .ci/run installs it)`);
    suite.skip();
  }
  const root = await mkdtemp(path.join(tmpdir(), 'aiops-web-'));
  const remote = createRemote(root, 'acme/runbooks', { 'README.md': '# Runbooks\n\nHow to drain a router before maintenance.\n' });
  const env = {
    DATA_DIR: path.join(root, 'data'),
    GIT_BASE_URL: remote.baseUrl,
    EMBEDDING_MODEL: 'none',
    HEALTH_FALL: '1',
    HEALTH_RISE: '1',
    HEALTH_TIMEOUT_MS: '3000',
    ...extraEnv,
  };
  const redis: TestRedis = await startTestRedis();
  const sut = await startChatHarness(redis, { env });
  const workers: RunningWorkers = await startWorkers(sut.config, silentLogger(), { queues: [QueueName.Health, QueueName.Index] });
  await workers.ready();
  const adminKey = (
    await sut.records.tokens.create({ username: 'admin', superuser: true, permissions: [], writeEnabled: true, expires: null })
  ).key;
  const browser = await launchBrowser();
  return {
    sut,
    redis,
    browser,
    remote,
    adminKey,
    async open(page, which, key, query = '') {
      await page.goto(`${sut.baseUrl}/plugins/ai-ops/${which}/${query}`);
      await signIn(page, key);
    },
    async close() {
      await browser.close();
      await workers.close();
      await sut.close();
      await redis.destroy();
      await rm(root, { recursive: true, force: true });
    },
  };
}
