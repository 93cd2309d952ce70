// The CO-RL partner pairs and their cold-start accuracies (results/corl/pairs.csv), from the committed cold-start
// report alone (no training): pair,agent_a,agent_b,acc_a,acc_b,gap (gap = acc_a - acc_b, accuracies averaged over
// the training families). Checks that the matched-strength rule (matchedPair, MATCH_TOLERANCE) still picks the
// pair that corl_diff_family_matched trains.
// Usage: tsx src/cli/corl-pairs.ts [results/coldstart/report.csv] [results/corl/pairs.csv]
import { parseArgsWithPositionals, runMain } from '../io/args.js';
import { readCsv, writeCsv } from '../io/table.js';
import { checkMatchedMethod, coldStartAccuracy, pairRows } from '../methods/tables/table1.js';

runMain(async () => {
  const { positionals } = parseArgsWithPositionals(process.argv.slice(2), {}, ['[report]', '[out]'], {
    about:
      'report: the cold-start report (default results/coldstart/report.csv); out: the pairs table (default ' +
      'results/corl/pairs.csv)',
  });
  const [report = 'results/coldstart/report.csv', out = 'results/corl/pairs.csv'] = positionals;
  const acc = coldStartAccuracy(readCsv(report));
  checkMatchedMethod(acc);
  const rows = pairRows(acc);
  writeCsv(out, rows, ['pair', 'agent_a', 'agent_b', 'acc_a', 'acc_b', 'gap']);
  console.log(`CO-RL pairs -> ${out}: ${rows.map((r) => `${r.pair} ${r.gap.toFixed(3)}`).join(', ')}`);
});
