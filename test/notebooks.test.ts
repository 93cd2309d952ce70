// Every notebook runs headless with the tslab kernel, without an error cell.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

describe('notebooks', function () {
  this.timeout(180000);
  for (const nb of fs.readdirSync('notebooks').filter((f) => f.endsWith('.ipynb'))) {
    it(`${nb} executes headless`, () => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-nb-'));
      const r = spawnSync('/usr/bin/jupyter', ['nbconvert', '--to', 'notebook', '--execute', '--output-dir', out, path.join('notebooks', nb)], {
        encoding: 'utf8', env: { ...process.env, JUPYTER_PATH: path.resolve('.jupyter/share/jupyter'), PYDEVD_DISABLE_FILE_VALIDATION: '1' },
      });
      assert.equal(r.status, 0, `nbconvert failed:\n${r.stderr.slice(-3000)}`);
      const cells = JSON.parse(fs.readFileSync(path.join(out, nb), 'utf8')).cells as { cell_type: string; outputs?: { output_type: string }[] }[];
      const code = cells.filter((c) => c.cell_type === 'code');
      assert.ok(code.length > 0 && code.every((c) => (c.outputs ?? []).every((o) => o.output_type !== 'error')));
      assert.ok(code.some((c) => (c.outputs ?? []).length > 0), 'the notebook produced output');
    });
  }
});
