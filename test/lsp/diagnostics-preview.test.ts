// DiagnosticsScheduler.setPreviewDiagnostics: the preview plan's diagnostics merged into a document's pushed and
// pulled results, marked with source 'foresight preview', republishing only documents whose results changed.
// In-process, with an engine that returns a fixed analysis (the scheduler's contract does not depend on it).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver';
import { DiagnosticsScheduler } from '../../server/lsp/diagnostics';
import { OpenDocuments } from '../../server/lsp/documents';
import type { DirectoryAnalysis, Engine } from '../../server/lsp/engine';
import { initParser } from '../../server/syntax/treesitter';

const DIR = '/ws/mod';
const A = `${DIR}/a.tf`;
const B = `${DIR}/b.tf`;
const uri = (p: string) => `file://${p}`;

function fixture(pullMode: boolean) {
  const analysis: DirectoryAnalysis = {
    diagnostics: new Map([
      [
        A,
        [
          {
            severity: 'error',
            summary: 'Unsupported argument',
            detail: 'An argument named "x" is not expected here.',
            subject: { filename: A, start: { line: 1, column: 3, byte: 2 }, end: { line: 1, column: 4, byte: 3 } },
          },
        ],
      ],
    ]),
    general: [],
  };
  let analyses = 0;
  const engine: Engine = {
    init: initParser,
    analyzeDirectory: async () => {
      analyses++;
      return analysis;
    },
    format: () => undefined,
  };
  const published: { uri: string; diagnostics: Diagnostic[] }[] = [];
  const versions: (number | undefined)[] = [];
  let refreshes = 0;
  const documents = new OpenDocuments();
  const sched = new DiagnosticsScheduler(
    engine,
    documents,
    {
      publish: (u, d, v) => {
        published.push({ uri: u, diagnostics: d });
        versions.push(v);
      },
      refresh: () => refreshes++,
      status: () => undefined,
    },
    { info: () => undefined, error: (m) => assert.fail(m) },
  );
  sched.debounceMs = 0;
  sched.pullMode = pullMode;
  return { sched, documents, published, versions, refreshes: () => refreshes, analyses: () => analyses };
}

const planError: Diagnostic = {
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 12 } },
  severity: 1,
  message: 'Invalid for_each argument',
};

async function settle(f: ReturnType<typeof fixture>, uris: string[]) {
  // Push mode: wait until every document got its analysis result.
  for (let i = 0; i < 200 && !uris.every((u) => f.published.some((p) => p.uri === u)); i++) await new Promise((r) => setTimeout(r, 5));
}

test('push: preview diagnostics are appended with their own source, only changed documents are republished', async () => {
  await initParser();
  const f = fixture(false);
  try {
    f.sched.changed(f.documents.open(uri(A), 'terraform', 1, 'a {\n  x = 1\n}\n'));
    f.sched.changed(f.documents.open(uri(B), 'terraform', 1, 'b {}\n'));
    await settle(f, [uri(A)]);
    const before = f.published.length;
    const latestA = f.published.filter((p) => p.uri === uri(A)).at(-1);
    assert.deepEqual(latestA?.diagnostics.map((d) => d.source), ['foresight']);

    f.sched.setPreviewDiagnostics(DIR, new Map([[B, [planError]]]));
    assert.equal(f.published.length, before + 1, 'only b.tf changed');
    assert.deepEqual(f.published.at(-1), { uri: uri(B), diagnostics: [{ ...planError, source: 'foresight preview' }] });

    // The same set again: nothing changed, nothing is sent.
    f.sched.setPreviewDiagnostics(DIR, new Map([[B, [planError]]]));
    assert.equal(f.published.length, before + 1);

    // Moved to a.tf: b.tf is cleared, a.tf gets analysis + preview, in that order.
    f.sched.setPreviewDiagnostics(DIR, new Map([[A, [planError]]]));
    assert.equal(f.published.length, before + 3);
    const sent = new Map(f.published.slice(before + 1).map((p) => [p.uri, p.diagnostics]));
    assert.deepEqual(sent.get(uri(B)), []);
    assert.deepEqual(
      sent.get(uri(A))?.map((d) => [d.source, d.message]),
      [
        ['foresight', 'Unsupported argument\n\nAn argument named "x" is not expected here.'],
        ['foresight preview', 'Invalid for_each argument'],
      ],
    );

    // A later analysis keeps the preview diagnostics (they are replaced only by the next preview).
    f.sched.changed(f.documents.get(uri(A))!);
    const analysesBefore = f.analyses();
    for (let i = 0; i < 200 && f.analyses() === analysesBefore; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(f.published.length, before + 3, 'the re-analysis found the same diagnostics: nothing republished');

    // Clearing: a.tf goes back to the analysis's diagnostics alone.
    f.sched.setPreviewDiagnostics(DIR, new Map());
    assert.deepEqual(f.published.at(-1)?.diagnostics.map((d) => d.source), ['foresight']);
    assert.equal(f.published.length, before + 4);
  } finally {
    f.sched.dispose();
    f.documents.disposeAll();
  }
});

/** Runs `body` on a push-mode fixture, disposed afterwards. */
async function withFixture(body: (f: ReturnType<typeof fixture>) => Promise<void>): Promise<void> {
  await initParser();
  const f = fixture(false);
  try {
    await body(f);
  } finally {
    f.sched.dispose();
    f.documents.disposeAll();
  }
}

/** Opens a.tf (version 1, whose analysis reports one error) and waits for its diagnostics. */
async function openAnalysedA(f: ReturnType<typeof fixture>) {
  const doc = f.documents.open(uri(A), 'terraform', 1, 'a {\n  x = 1\n}\n');
  f.sched.changed(doc);
  await settle(f, [uri(A)]);
  return doc;
}

test('a preview error that repeats one of the analysis\'s (same range, severity and message) is shown once', () =>
  withFixture(async (f) => {
    await openAnalysedA(f);
    const again: Diagnostic = {
      range: { start: { line: 0, character: 2 }, end: { line: 0, character: 3 } },
      severity: 1,
      message: 'Unsupported argument\n\nAn argument named "x" is not expected here.',
    };
    f.sched.setPreviewDiagnostics(DIR, new Map([[A, [again, planError]]]));
    assert.deepEqual(
      f.published.at(-1)?.diagnostics.map((d) => [d.source, d.message]),
      [
        ['foresight', 'Unsupported argument\n\nAn argument named "x" is not expected here.'],
        ['foresight preview', 'Invalid for_each argument'],
      ],
    );
    // The same message elsewhere is another diagnostic.
    const elsewhere = { ...again, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } };
    f.sched.setPreviewDiagnostics(DIR, new Map([[A, [elsewhere]]]));
    assert.deepEqual(f.published.at(-1)?.diagnostics.map((d) => d.source), ['foresight', 'foresight preview']);
  }));

test('a document edited since its analysis gets a new preview set with its next analysis, under that version', () =>
  withFixture(async (f) => {
    const doc = await openAnalysedA(f);
    const before = f.published.length;
    doc.update([{ text: 'a {\n  x = 2\n}\n' }], 2);
    f.sched.setPreviewDiagnostics(DIR, new Map([[A, [planError]]]));
    assert.equal(f.published.length, before, 'nothing is sent under version 2 from the analysis of version 1');
    f.sched.changed(doc);
    for (let i = 0; i < 200 && f.published.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    const last = f.published.at(-1)!;
    assert.equal(last.uri, uri(A));
    assert.deepEqual(
      last.diagnostics.map((d) => d.source),
      ['foresight', 'foresight preview'],
    );
    assert.equal(f.versions.at(-1), 2);
  }));

test('pull: a pull answers the merged result; a change to an already pulled document asks for a refresh', async () => {
  await initParser();
  const f = fixture(true);
  try {
    f.sched.changed(f.documents.open(uri(A), 'terraform', 1, 'a {\n  x = 1\n}\n'));
    f.sched.changed(f.documents.open(uri(B), 'terraform', 1, 'b {}\n'));
    assert.deepEqual(await f.sched.pull(uri(B)), []);
    f.sched.setPreviewDiagnostics(DIR, new Map([[B, [planError]]]));
    assert.equal(f.refreshes(), 1, 'b.tf was pulled before: the client is told to pull again');
    f.sched.setPreviewDiagnostics(DIR, new Map([[A, [planError]]]));
    assert.equal(f.refreshes(), 1, 'b.tf is back to what it was pulled with; a.tf was never pulled');
    assert.deepEqual(await f.sched.pull(uri(B)), []);
    assert.deepEqual(
      (await f.sched.pull(uri(A))).map((d) => d.source),
      ['foresight', 'foresight preview'],
    );
    assert.equal(f.published.length, 0, 'pull mode never pushes');
  } finally {
    f.sched.dispose();
    f.documents.disposeAll();
  }
});

test('settled: resolves at once when idle, else when the directory\'s scheduled and running analyses are over', async () => {
  await initParser();
  let release: (() => void) | undefined;
  let analyses = 0;
  const engine: Engine = {
    init: initParser,
    analyzeDirectory: async () => {
      analyses++;
      await new Promise<void>((r) => (release = r));
      return { diagnostics: new Map(), general: [] };
    },
    format: () => undefined,
  };
  const documents = new OpenDocuments();
  const sched = new DiagnosticsScheduler(
    engine,
    documents,
    { publish: () => undefined, refresh: () => undefined, status: () => undefined },
    { info: () => undefined, error: (m) => assert.fail(m) },
  );
  sched.debounceMs = 0;
  try {
    let done = false;
    await sched.settled(DIR); // nothing known of the directory
    sched.changed(documents.open(uri(A), 'terraform', 1, 'a {}\n'));
    const waiting = sched.settled(DIR).then(() => (done = true));
    // Scheduled, then running: not settled.
    for (let i = 0; i < 200 && !release; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(analyses, 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(done, false);
    release!();
    await waiting;
    assert.equal(done, true);
    await sched.settled(DIR); // idle again: at once
  } finally {
    release?.();
    sched.dispose();
  }
});
