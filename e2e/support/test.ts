// The `test` every spec imports (issue 28): a test fails on any console error, uncaught page error
// or Content-Security-Policy violation in any page it opened, so that a hydration mismatch or a
// blocked script can never pass unnoticed. A test that provokes one on purpose says so with
// `allowBrowserErrors(/…/)`.
import { test as base, type BrowserContext, expect, type Page } from '@playwright/test';

export { expect };

let allowed: RegExp[] = [];

/** The errors this test provokes on purpose (matched against the message, or the failed resource's address). */
export function allowBrowserErrors(...patterns: RegExp[]) {
  allowed.push(...patterns);
}

function watchPage(page: Page, seen: string[]) {
  // A page's own document answering 4xx is what the test reads (a refusal, a 404 page); a 5xx, a
  // script, a style or a fetch that fails is an error.
  const documents = new Map<string, number>();
  page.on('response', (response) => {
    if (response.request().isNavigationRequest()) documents.set(response.url(), response.status());
  });
  page.on('pageerror', (error) => seen.push(`page error on ${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    const url = message.location().url;
    if (/^Failed to load resource/.test(text)) {
      const status = documents.get(url);
      if (status !== undefined && status < 500) return;
    }
    seen.push(`console error on ${page.url()}: ${text}${url ? ` (${url})` : ''}`);
  });
}

// Chromium logs nothing for a CSP violation that the page's code catches (a library probing `new
// Function` in a try): the page's own event tells.
const reportViolations = () =>
  document.addEventListener('securitypolicyviolation', (event) =>
    console.error(`CSP violation: ${event.effectiveDirective} refused ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`),
  );

async function watchContext(context: BrowserContext, seen: string[], watched: WeakSet<BrowserContext>) {
  if (watched.has(context)) return;
  watched.add(context);
  await context.addInitScript(reportViolations);
  for (const page of context.pages()) watchPage(page, seen);
  context.on('page', (page) => watchPage(page, seen));
}

export const test = base.extend<{ browserErrors: string[] }>({
  browserErrors: [
    async ({ context, browser }, use) => {
      allowed = [];
      const seen: string[] = [];
      const watched = new WeakSet<BrowserContext>();
      await watchContext(context, seen, watched);
      // Contexts a test opens itself (a second browser, JavaScript off) are watched too.
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (...args) => {
        const created = await newContext(...args);
        await watchContext(created, seen, watched);
        return created;
      };
      await use(seen);
      browser.newContext = newContext;
      const unexpected = seen.filter((line) => !allowed.some((pattern) => pattern.test(line)));
      expect(unexpected, 'console errors, page errors or CSP violations in the browser').toEqual([]);
    },
    { auto: true },
  ],
});
