// One colour per method across every figure (and per family), and the 95% band drawn under a mean curve.
import { FAMILIES } from '../src/world/families.js';

/** Table 2's methods and the RLCER ablations (a method keeps its colour in every figure that shows it). */
export const METHOD_COLORS: Record<string, string> = {
  sft: '#000000',
  rlvr: '#7f7f7f',
  scalar_rm: '#8c564b',
  fixed_untrained: '#bcbd22',
  fixed_teacher: '#ff7f0e',
  rlcer_no_evolve: '#9ecae1',
  rlcer: '#1f77b4',
  rlcer_rubric_only: '#2ca02c',
  rlcer_rubric_only_random: '#d62728',
  rlcer_oracle: '#17becf',
  rlcer_paper_rate: '#6baed6',
  rlcer_literal_validity: '#08519c',
  evolm_sequential: '#c5b0d5',
  evolm: '#9467bd',
  judge_teacher: '#e377c2',
  judge_untrained: '#f7b6d2',
  evolm_two_model: '#5b2a86',
};

/**
 * The world's problem families (RLVR's per-family curves, the held-out evaluation panels): the registry's families in
 * its order, each the next colour of this palette.
 */
const FAMILY_PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf', '#7f7f7f'];
export const FAMILY_COLORS: Record<string, string> = Object.fromEntries(
  FAMILIES.map((f, i) => [f, FAMILY_PALETTE[i % FAMILY_PALETTE.length]]),
);

/** A filled band between lo and hi (a 95% interval), drawn under its line, without a legend entry. */
export function band(
  x: number[],
  lo: number[],
  hi: number[],
  color: string,
  name: string,
  axes: Record<string, string> = {},
) {
  return {
    type: 'scatter',
    mode: 'lines',
    x: [...x, ...[...x].reverse()],
    y: [...hi, ...[...lo].reverse()],
    fill: 'toself',
    fillcolor: `${color}33`,
    line: { width: 0 },
    hoverinfo: 'skip',
    showlegend: false,
    name: `${name} 95% CI`,
    ...axes,
  };
}
