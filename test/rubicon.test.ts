// Rubicon's anchors on teacher traces: hard anchors by hand, the defence rubric catching a verification whose
// digits do not follow from the working, and reward vectors with the oracle judge.
import { strict as assert } from 'node:assert';
import { ANCHORS, TASK_FAMILIES, lengthBudget, recomputedDigits, rewardVectors } from '../src/methods/rubicon.js';
import { oracleJudge } from '../src/models/verifier.js';
import { sampleProblem } from '../src/world/problems.js';
import { writeTrace } from '../src/world/teacher.js';
import { parseTrace } from '../src/world/trace.js';
import { makeRng } from '../src/util/random.js';

const batchJudge = (xs: { c: Parameters<typeof oracleJudge>[0]; p: Parameters<typeof oracleJudge>[1]; completion: string[] }[]) => xs.map((x) => oracleJudge(x.c, x.p, x.completion));

describe('Rubicon anchors', () => {
  const rng = makeRng(12);
  const p = sampleProblem('add', 3, rng);
  it('hard anchors on a correct verified trace, a shortcut and a truncated one', () => {
    const good = writeTrace(p, 'verified', makeRng(1), { errorRate: 0, verifyMiss: 0 }).tokens;
    const score = (name: string, completion: string[]) => (ANCHORS[name] as { score: (x: unknown) => number }).score({ p, completion, trace: parseTrace(completion) });
    assert.equal(score('format', good), 1);
    assert.equal(score('honest_verification', good), 1);
    assert.equal(score('length', good), 1);
    assert.equal(score('format', good.slice(0, -2)), 0); // truncated: no <eos>
    const shortcut = ['A', ...p.answer.map(String), '<eos>'];
    assert.equal(score('honest_verification', shortcut), 1); // nothing claimed, nothing to catch
    const long = [...good.slice(0, -1), ...Array(3 * lengthBudget(p)).fill('|')];
    assert.equal(score('length', long), 0);
  });
  it('the defence rubric catches verification digits that do not follow from the working', () => {
    const good = writeTrace(p, 'verified', makeRng(1), { errorRate: 0, verifyMiss: 0 }).tokens;
    const v = good.indexOf('V');
    const want = recomputedDigits(parseTrace(good), p)!;
    const hacked = [...good.slice(0, v + 1), ...want.map((d) => String((d + 1) % 10)), ...good.slice(v + 1 + want.length)];
    const score = (completion: string[]) => (ANCHORS.honest_verification as { score: (x: unknown) => number }).score({ p, completion, trace: parseTrace(completion) });
    assert.equal(score(hacked), 0);
  });
  it('reward vectors follow the family anchors, soft ones judged in one batch', () => {
    const traces = [writeTrace(p, 'systematic', makeRng(2), { errorRate: 0, verifyMiss: 0 }).tokens, ['A', ...p.answer.map(String), '<eos>']];
    const q = rewardVectors(TASK_FAMILIES.quality.map((n) => ANCHORS[n]), traces.map((completion) => ({ p, completion })), batchJudge);
    assert.deepEqual(q[0], [1, 1, 1, 1, 1]);
    assert.deepEqual(q[1], [1, 0, 0, 0, 0]); // a shortcut: right format, no working
    const c = rewardVectors(TASK_FAMILIES.constraints.map((n) => ANCHORS[n]), traces.map((completion) => ({ p, completion })), batchJudge);
    assert.equal(c[0][2], 0); // no verification step
  });
});
