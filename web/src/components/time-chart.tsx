/**
 * A time-series line chart drawn by uPlot, with the same numbers as a table for screen readers
 * and keyboard users (the canvas alone says nothing to them).
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
}

const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777'];

interface Props {
  id: string;
  title: string;
  /** Bucket starts, epoch seconds, oldest first. */
  times: number[];
  series: ChartSeries[];
  format: (value: number) => string;
  /** Whole numbers only (counts): no fractional ticks on the y axis. */
  integer?: boolean;
}

const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000, 10_000_000];

export function TimeChart({ id, title, times, series, format, integer = false }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry?.contentRect.width ?? 0)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const el = box.current;
    if (!el || width === 0 || times.length === 0) return;
    const chart = new uPlot(
      {
        width,
        height: 220,
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, points: { show: times.length < 40 }, value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)) }))],
        axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map(format), size: 70, ...(integer ? { incrs: INTEGER_STEPS } : {}) }],
        scales: { x: { time: true }, y: { range: (_u: uPlot, min: number, max: number) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
        legend: { live: true },
      },
      [times, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    return () => chart.destroy();
  }, [width, times, series, format, integer]);

  const points = times.length;
  return (
    <figure className="chart" data-testid={`chart-${id}`} data-points={points} aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div ref={box} className="chart-canvas" aria-hidden="true" />
      {points === 0 && <p className="empty">No requests in this range.</p>}
      <details className="chart-table">
        <summary>Show as a table</summary>
        <table>
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {times.map((t, row) => (
              <tr key={t}>
                <th scope="row">{new Date(t * 1000).toLocaleString()}</th>
                {series.map((s) => (
                  <td key={s.label}>{s.values[row] === null || s.values[row] === undefined ? '—' : format(s.values[row]!)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
