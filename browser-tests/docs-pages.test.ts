// The HTML pages the services serve, in a real browser (playwright-core driving the system's chromium, or
// the one an npm package ships: ./chromium.ts): the Swagger UI at /docs of the vault API (testnet) and of
// the resolver. Each page must list every operation of its spec (method and path; deprecated ones too) with
// a clean console, no failed request and no description table row split by a '|', and show its first
// operation near the top (the guide's prose lives in docs/, not above the operations); a screenshot of
// each goes to test-results/. These two are the only HTML pages: the mainnet vault API answers /docs with
// 404 JSON, and the simulator serves JSON-RPC and friendbot only. The services are started in process as
// `npm start` starts them.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../contract-tests/helpers/spec.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServices, type RunningServices } from '../src/services.ts';
import { TEST_LOG_ARGS } from '../test-support/log-level.ts';
import { launchChromium } from './chromium.ts';

/** Where the first operation must start, in CSS pixels from the top of the page (a 1280 × 900 viewport). */
const FIRST_OPERATION_MAX_TOP = 1_000;
const SCREENSHOTS = path.resolve('test-results');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD path` of every operation of a spec. */
function operationsOf(specFile: string): string[] {
  const spec = loadSpec(specFile);
  return Object.entries<Record<string, unknown>>(spec.paths).flatMap(([p, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${p}`),
  );
}

let browser: Browser;
let services: RunningServices;
const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-browser-'));

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const { config } = loadConfig(
    [
      '--testnet-port',
      '0',
      '--mainnet-port',
      '0',
      '--resolver-port',
      '0',
      '--simulator-port',
      '0',
      '--data-dir',
      dataDir,
      ...TEST_LOG_ARGS,
    ],
    {},
  );
  // Never a skip: without a browser this fails with one line that says what to install.
  let launched: Awaited<ReturnType<typeof launchChromium>>;
  [launched, services] = await Promise.all([launchChromium(), startServices(config, { mode: 'start' })]);
  browser = launched.browser;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await services?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A page whose waits are bounded only below the test's own limit: Swagger UI rendering on a loaded host took
 * longer than a fixed 15 s, and no test is timed by the machine's speed.
 */
async function newPage() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(100_000);
  page.setDefaultNavigationTimeout(100_000);
  return page;
}

describe.each([
  { name: 'vault-api', spec: 'spec/vault-api.yaml', base: () => services.vault.testnet!.url },
  { name: 'did-resolver', spec: 'spec/did-resolver.yaml', base: () => services.resolverUrl! },
])('$name /docs', ({ name, spec, base }) => {
  it('lists every operation of the spec, with a clean console, no failed request and whole table rows', async () => {
    const page = await newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    try {
      const res = await page.goto(`${base()}/docs`, { waitUntil: 'networkidle' });
      expect(res?.status()).toBe(200);
      await page.waitForSelector('.opblock').catch((err: Error) => {
        throw new Error(
          `no operation rendered (${err.message.split('\n')[0]}); the page said:\n${problems.join('\n')}`,
        );
      });
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map(
          (b) =>
            `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary [data-path]')?.getAttribute('data-path')}`,
        ),
      );
      // A '|' inside a table cell of a description splits the row: every row must have the header's cells.
      const brokenRows = await page.$$eval('.info table', (tables) =>
        tables.flatMap((t) => {
          const width = t.querySelectorAll('thead th').length;
          return [...t.querySelectorAll('tbody tr')]
            .filter((r) => r.children.length !== width)
            .map((r) => r.textContent);
        }),
      );
      expect(brokenRows, 'table rows of the description with the wrong number of cells').toEqual([]);
      // The reader meets the operations without scrolling past pages of prose.
      const firstTop = await page.$eval('.opblock', (b) => b.getBoundingClientRect().top + window.scrollY);
      expect(firstTop, 'top of the first operation (px)').toBeLessThan(FIRST_OPERATION_MAX_TOP);
      await page.screenshot({ path: path.join(SCREENSHOTS, `docs-${name}.png`), fullPage: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `docs-${name}-first-screen.png`) });
      const height = await page.evaluate(() => document.body.scrollHeight);
      console.log(`${name}: first operation at ${firstTop} px of ${height} px`);
      const want = operationsOf(spec);
      expect(want.length).toBeGreaterThan(5);
      expect(
        want.filter((op) => !shown.includes(op)),
        'operations missing from the page',
      ).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

// "Try it out" must not send a fixed Idempotency-Key (a second prepare from /docs would be refused) or a fixed
// X-Request-ID (every request from /docs would share one id in the logs): Swagger UI fills a header with its
// parameter's example, so the spec gives these none, and the request sent has neither header.
it('vault-api /docs: "Try it out" on a write sends no Idempotency-Key and no X-Request-ID', async () => {
  const page = await newPage();
  try {
    await page.goto(`${services.vault.testnet!.url}/docs`, { waitUntil: 'networkidle' });
    const op = page.locator('.opblock', { has: page.locator('[data-path="/contracts/vc/revoke"]') }).first();
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/contracts/vc/revoke'));
    await op.locator('button.execute').click();
    const headers = await (await sent).allHeaders();
    expect(headers['idempotency-key']).toBeUndefined();
    expect(headers['x-request-id']).toBeUndefined();
  } finally {
    await page.close();
  }
});

describe('no other HTML page', () => {
  it.each([
    ['the simulator', () => `${services.simulatorUrl}/`],
    ['the vault API (testnet) /', () => `${services.vault.testnet!.url}/`],
    ['the resolver /', () => `${services.resolverUrl}/`],
  ])('%s answers JSON', async (_name, url) => {
    const res = await fetch(url());
    await res.arrayBuffer();
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('the mainnet vault API answers /docs with 404 JSON', async () => {
    const res = await fetch(`${services.vault.mainnet!.url}/docs`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
  });
});
