// make bench-quick's reading of the runs' records (src/cli/bench-quick.ts): each run's own seconds and the step
// parts its trainer timed, summed over runs; runs without metrics (SFT) count their seconds only.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runSeconds } from '../src/cli/bench-quick.js';

describe('bench-quick', () => {
  it("sums every finished run's seconds and its steps' timed parts (hand-computed)", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wb-bq-'));
    const run = (rel: string, seconds: number, steps: Record<string, number>[] | null) => {
      const dir = path.join(root, rel);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'done.json'), JSON.stringify({ seconds }));
      if (steps)
        fs.writeFileSync(path.join(dir, 'metrics.jsonl'), steps.map((m) => JSON.stringify(m)).join('\n') + '\n');
    };
    run('S/rlvr/seed-0', 9.5, [
      { step: 0, sample_ms: 100, update_ms: 300 },
      { step: 1, sample_ms: 120, update_ms: 280, accuracy: 0.5 },
    ]);
    run('S/rlcer/seed-0', 16, [{ step: 0, sample_ms: 90, rubric_ms: 80, judge_ms: 250, update_ms: 650 }]);
    run('S/sft/seed-0', 2.5, null);
    fs.mkdirSync(path.join(root, 'S/evolm/seed-0'), { recursive: true }); // unfinished: no done.json
    fs.writeFileSync(path.join(root, 'S/evolm/seed-0/metrics.jsonl'), JSON.stringify({ update_ms: 1e6 }) + '\n');
    const s = runSeconds(root);
    assert.equal(s.runs, 3);
    assert.equal(s.inProcess, 28);
    const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);
    close(s.parts.sample, 0.31);
    close(s.parts.rubric, 0.08);
    close(s.parts.judge, 0.25);
    close(s.parts.update, 1.23);
  });
});
