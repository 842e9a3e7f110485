/**
 * A windowed list: only the rows in view (plus a few) are in the DOM, so ten thousand log rows
 * scroll as smoothly as ten. Rows have one fixed height. Arrow keys, Home and End move the focus
 * between rows and keep the focused row in view.
 */
import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 6): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return [first, last];
}

interface Props<T> {
  items: T[];
  rowHeight: number;
  /** Viewport height in px. */
  height: number;
  label: string;
  renderRow: (item: T, index: number) => ReactNode;
  header?: ReactNode;
}

export function VirtualList<T>({ items, rowHeight, height, label, renderRow, header }: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [first, last] = visibleRange(scrollTop, height, rowHeight, items.length);

  const focusRow = (index: number) => {
    const el = box.current;
    if (!el) return;
    const target = Math.max(0, Math.min(items.length - 1, index));
    const top = target * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + height) el.scrollTop = top + rowHeight - height;
    setScrollTop(el.scrollTop);
    // The row renders on the next frame when it was out of the window.
    requestAnimationFrame(() => el.querySelector<HTMLElement>(`[data-index="${target}"] a, [data-index="${target}"] button`)?.focus());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const row = (event.target as HTMLElement).closest<HTMLElement>('[data-index]');
    if (!row) return;
    const index = Number(row.dataset.index);
    const moves: Record<string, number> = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1, PageDown: index + Math.floor(height / rowHeight), PageUp: index - Math.floor(height / rowHeight) };
    const to = moves[event.key];
    if (to === undefined) return;
    event.preventDefault();
    focusRow(to);
  };

  return (
    <div className="vlist" role="table" aria-label={label} aria-rowcount={items.length}>
      {header}
      <div ref={box} className="vlist-viewport" style={{ height }} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)} onKeyDown={onKeyDown}>
        <div role="rowgroup" style={{ height: items.length * rowHeight, position: 'relative' }}>
          {items.slice(first, last).map((item, offset) => {
            const index = first + offset;
            return (
              <div key={index} role="row" aria-rowindex={index + 1} data-index={index} className="vlist-row" style={{ position: 'absolute', top: index * rowHeight, height: rowHeight, left: 0, right: 0 }}>
                {renderRow(item, index)}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
