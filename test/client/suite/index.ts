// Entry of the extension integration tests (the @vscode/test-electron contract: run() executes inside VS Code's
// extension host and resolves when every test passed). Bundled to CommonJS with mocha inside by
// scripts/vscode-e2e/run-client-tests.mjs, which runs it in code-server (and scripts/test-electron.mjs in a
// downloaded VS Code). FORESIGHT_E2E_MODE=untrusted selects the suite for a workspace that is not trusted, =empty the one for a
// folder without .tf files.
/// <reference types="mocha" />
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 120000, reporter: 'spec' });
  // A bundle cannot use mocha.addFile: set up the tdd globals and load the suites statically.
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  const mode = process.env.FORESIGHT_E2E_MODE;
  if (mode === 'untrusted') require('./untrusted.suite');
  else if (mode === 'empty') require('./empty.suite');
  else require('./extension.suite');
  return new Promise((resolve, reject) =>
    mocha.run((failures) => (failures ? reject(new Error(`${failures} test${failures === 1 ? '' : 's'} failed`)) : resolve())),
  );
}
