// Headless Chromium for the page tests: Debian's `chromium` (apt package, installed by .ci/run) driven by
// playwright-core, which downloads no browser of its own. Missing Chromium fails under CI=true and is
// reported as a plan-0 skip for a developer without it, never silently passed.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where page tests leave screenshots for a person to look at: tap's output directory. */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../../.tap/screenshots/', import.meta.url));

interface Plannable {
  fail(message: string): void;
  plan(n: number, reason?: string): void;
  teardown(fn: () => unknown): void;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** What went wrong in the pages so far (script errors, console errors, failed requests), for a failure's message. */
  problems: string[];
}

/** How many of a browser's problems are kept: the latest ones say most about a wait that timed out. */
const PROBLEMS_KEPT = 30;

function recordProblems(page: Page, problems: string[]): void {
  const add = (line: string) => {
    problems.push(`${new Date().toISOString()} ${line}`);
    if (problems.length > PROBLEMS_KEPT) problems.shift();
  };
  page.on('pageerror', (error) => add(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') add(`console error: ${message.text()}`);
  });
  page.on('requestfailed', (request) => add(`request failed: ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? '?'}`));
}

/**
 * Waits for a selector to be visible; on a timeout the error says where the page was and what went wrong in it
 * (a module that failed to load leaves a page that never runs its script, which a bare timeout does not tell).
 */
export async function waitVisible(browser: Browser, selector: string, timeout = 30_000): Promise<void> {
  try {
    await browser.page.waitForSelector(selector, { timeout });
  } catch (error) {
    const problems = browser.problems.length ? browser.problems.join('\n  ') : 'none recorded';
    throw new Error(`${selector} not visible after ${timeout} ms at ${browser.page.url()}: ${(error as Error).message.split('\n')[0]}\nthe pages' problems:\n  ${problems}`);
  }
}

/** Launches Chromium with a throwaway profile, closed at the test's teardown; undefined when missing. */
export async function launchChromium(
  t: Plannable,
  options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) {
    if (process.env['CI'] === 'true') t.fail(`${CHROMIUM} is missing: apt-get install -y chromium`);
    else t.plan(0, `${CHROMIUM} is missing: apt-get install -y chromium`);
    return undefined;
  }
  const profile = mkdtempSync(join(tmpdir(), 'tidewatch-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...(options.viewport ? { viewport: options.viewport } : {}),
    ...(options.colorScheme ? { colorScheme: options.colorScheme } : {}),
  });
  t.teardown(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  const problems: string[] = [];
  context.on('page', (page) => recordProblems(page, problems));
  for (const page of context.pages()) recordProblems(page, problems);
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, problems };
}

/** Saves a screenshot (the full page unless told) under SCREENSHOT_DIR and returns its path. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

// Code that runs in the page is passed as a string: the tests are typed for Node, without the DOM's types.

/** Evaluates a JavaScript expression in the page. */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/**
 * Waits until a JavaScript expression is truthy in the page. Polled from here, not with waitForFunction:
 * that evaluates the string inside the page with eval, which the dashboard's CSP rightly refuses.
 */
export async function untilInPage(page: Page, expression: string, timeout = 30_000): Promise<void> {
  const until = Date.now() + timeout;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > until) throw new Error(`not true in the page after ${timeout} ms: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the element matching `selector` contains `text`. */
export function untilText(page: Page, selector: string, text: string, timeout = 30_000): Promise<void> {
  return untilInPage(page, `document.querySelector(${JSON.stringify(selector)})?.textContent?.includes(${JSON.stringify(text)})`, timeout);
}

/** How a panel fits the screen: its edges, the screen's width, sideways overflow, and its parts drawn outside it. */
export interface PanelFit {
  readonly panel: { readonly left: number; readonly right: number };
  readonly width: number;
  /** Pixels the scroller (the panel's table wrapper) or the page would scroll sideways. */
  readonly sideways: number;
  readonly page: number;
  /** How many of `parts` reach outside the panel. */
  readonly outside: number;
}

/** Measures the panel around `scroller` (its closest `section`) and `parts` inside it (docs/dashboard.md). */
export function panelFit(page: Page, scroller: string, parts: string): Promise<PanelFit> {
  return inPage<PanelFit>(
    page,
    `(() => {
      const wrap = document.querySelector(${JSON.stringify(scroller)}).parentElement;
      const panel = wrap.closest('section').getBoundingClientRect();
      const boxes = [...document.querySelectorAll(${JSON.stringify(parts)})].map((c) => c.getBoundingClientRect());
      return {
        panel: { left: panel.left, right: panel.right },
        width: innerWidth,
        sideways: wrap.scrollWidth - wrap.clientWidth,
        page: document.documentElement.scrollWidth - innerWidth,
        outside: boxes.filter((c) => c.left < panel.left - 0.5 || c.right > panel.right + 0.5).length,
      };
    })()`,
  );
}
