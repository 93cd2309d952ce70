// The verifier: input format, the oracle, and that distillation learns a criterion a trace shows plainly.
import { strict as assert } from 'node:assert';
import { initBackend, tf } from '../src/models/backend.js';
import { createTransformer } from '../src/models/transformer.js';
import { oracleJudge, verifierConfig, verifierInput, VERIFIER_CONTEXT } from '../src/models/verifier.js';
import { verifierAccuracy, verifierStep, type LabelledExample } from '../src/methods/trainers/verifier.js';
import { judge } from '../src/rubrics/criteria.js';
import { sampleProblem, FAMILIES } from '../src/world/problems.js';
import { writeTrace, STYLES } from '../src/world/teacher.js';
import { parseTrace } from '../src/world/trace.js';
import { decode } from '../src/world/vocab.js';
import { makeRng } from '../src/util/random.js';

describe('verifier', function () {
  this.timeout(120000);
  before(async () => {
    await initBackend();
  });
  it('reads the criterion first, then the problem and the completion, within its context', () => {
    const rng = makeRng(1);
    for (let i = 0; i < 50; i++) {
      const p = sampleProblem(FAMILIES[i % 4], 4, rng),
        comp = writeTrace(p, 'verified', rng).tokens;
      const ids = verifierInput({ name: 'COL', args: [3, 7] }, p, comp);
      assert.deepEqual(decode(ids.slice(0, 5)), ['K:spe', 'COL', '3', '7', 'Q']);
      assert.ok(ids.length <= VERIFIER_CONTEXT);
    }
  });
  it('the oracle is the teacher', () => {
    const rng = makeRng(2);
    const p = sampleProblem('add', 3, rng),
      comp = writeTrace(p, 'sloppy', rng).tokens;
    assert.equal(
      oracleJudge({ name: 'CARRY', args: [] }, p, comp),
      judge({ name: 'CARRY', args: [] }, parseTrace(comp), p),
    );
  });
  it('distillation learns SHORT (answer without working) from teacher labels', () => {
    const rng = makeRng(3);
    const data: LabelledExample[] = Array.from({ length: 256 }, (_, i) => {
      const p = sampleProblem('add', 2, rng),
        completion = writeTrace(p, STYLES[i % 5], rng).tokens,
        c = { name: 'SHORT' as const, args: [] };
      return { c, p, completion, label: judge(c, parseTrace(completion), p) };
    });
    const model = createTransformer(verifierConfig(4)),
      opt = tf.train.adam(3e-3);
    for (let s = 0; s < 25; s++)
      verifierStep(
        model,
        opt,
        Array.from({ length: 32 }, () => data[rng.int(data.length)]),
      );
    const all = verifierAccuracy(model, data).find((r) => r.criterion === 'all')!;
    assert.ok(all.accuracy > 0.95 && all.positive_rate > 0.1, JSON.stringify(all));
  });
});
