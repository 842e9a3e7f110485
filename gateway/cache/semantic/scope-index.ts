/**
 * The vectors of one semantic-cache scope, searched for the nearest neighbour by cosine similarity.
 * Small scopes are searched exactly (a linear scan costs less than keeping a graph up to date);
 * past EXACT_SEARCH_LIMIT entries the scope moves to an HNSW index from hnswlib-node, built once
 * from every live entry and grown in place. Expired entries are skipped at search time and
 * removed from the graph when met.
 */
import hnswlib from 'hnswlib-node';

type HierarchicalNSW = InstanceType<typeof hnswlib.HierarchicalNSW>;

/** Up to this many entries a scope is searched exactly. */
export const EXACT_SEARCH_LIMIT = 1_000;
/** Neighbours fetched from the graph, so a few expired ones do not hide a live match. */
const GRAPH_CANDIDATES = 16;

export interface Neighbour {
  id: string;
  similarity: number;
}

interface Entry {
  id: string;
  vector: number[];
  expiresAt: number;
  label: number;
}

export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

export class ScopeIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly byLabel: Entry[] = [];
  private graph: HierarchicalNSW | undefined;
  private dimensions: number | undefined;

  get size(): number {
    return this.entries.size;
  }

  /** Whether the graph index is in use (for tests). */
  get usesGraph(): boolean {
    return this.graph !== undefined;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  add(id: string, vector: number[], expiresAt: number): void {
    if (this.entries.has(id) || vector.length === 0) return;
    this.dimensions ??= vector.length;
    if (vector.length !== this.dimensions) return;
    const entry: Entry = { id, vector, expiresAt, label: this.byLabel.length };
    this.entries.set(id, entry);
    this.byLabel.push(entry);
    if (this.graph) this.addToGraph(entry);
    else if (this.entries.size > EXACT_SEARCH_LIMIT) this.buildGraph();
  }

  nearest(vector: number[], now: number): Neighbour | undefined {
    if (vector.length !== this.dimensions) return undefined;
    return this.graph ? this.searchGraph(this.graph, vector, now) : this.searchExact(vector, now);
  }

  private searchExact(vector: number[], now: number): Neighbour | undefined {
    let best: Neighbour | undefined;
    for (const entry of this.entries.values()) {
      if (entry.expiresAt <= now) continue;
      const similarity = cosineSimilarity(vector, entry.vector);
      if (!best || similarity > best.similarity) best = { id: entry.id, similarity };
    }
    return best;
  }

  private searchGraph(graph: HierarchicalNSW, vector: number[], now: number): Neighbour | undefined {
    // Entries removed from the map are marked deleted in the graph, so the map's size is the graph's live count.
    const live = this.entries.size;
    if (live <= 0) return undefined;
    const found = graph.searchKnn(vector, Math.min(GRAPH_CANDIDATES, live));
    for (let i = 0; i < found.neighbors.length; i++) {
      const entry = this.byLabel[found.neighbors[i]!]!;
      if (entry.expiresAt > now) return { id: entry.id, similarity: 1 - found.distances[i]! };
      this.remove(entry);
    }
    return undefined;
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.id);
    this.graph?.markDelete(entry.label);
  }

  private buildGraph(): void {
    const graph = new hnswlib.HierarchicalNSW('cosine', this.dimensions!);
    graph.initIndex({ maxElements: Math.max(this.byLabel.length * 2, 64) });
    this.graph = graph;
    for (const entry of this.byLabel) {
      this.addToGraph(entry);
      if (!this.entries.has(entry.id)) graph.markDelete(entry.label);
    }
  }

  private addToGraph(entry: Entry): void {
    const graph = this.graph!;
    if (graph.getCurrentCount() >= graph.getMaxElements()) graph.resizeIndex(graph.getMaxElements() * 2);
    graph.addPoint(entry.vector, entry.label);
  }
}
