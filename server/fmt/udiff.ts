// Unified diff of two texts, in the layout of GNU `diff -u --label A --label B` (which `terraform fmt -diff`
// runs), so that `foresight fmt -diff` needs no external program.
//
// Lines are compared with their terminators, so a last line without a newline differs from the same line
// with one, and is followed by GNU's "\ No newline at end of file" marker. The edit script comes from the
// Myers middle-snake search that GNU diff uses (forward and backward searches meeting in the middle), which
// picks the same alignment as GNU diff for ordinary inputs.

function splitLines(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = s.indexOf('\n', start);
    if (nl < 0) {
      if (start < s.length) out.push(s.slice(start));
      return out;
    }
    out.push(s.slice(start, nl + 1));
    start = nl + 1;
  }
}

/** Returns change flags for each line of `a` (deleted) and `b` (inserted). */
function compare(a: number[], b: number[]): { da: boolean[]; db: boolean[] } {
  const da = new Array<boolean>(a.length).fill(false);
  const db = new Array<boolean>(b.length).fill(false);
  const size = a.length + b.length + 3;
  const fd = new Int32Array(2 * size + 2);
  const bd = new Int32Array(2 * size + 2);
  const off = size + 1;

  const diag = (xoff: number, xlim: number, yoff: number, ylim: number): [number, number] => {
    const dmin = xoff - ylim;
    const dmax = xlim - yoff;
    const fmid = xoff - yoff;
    const bmid = xlim - ylim;
    let fmin = fmid;
    let fmax = fmid;
    let bmin = bmid;
    let bmax = bmid;
    const odd = ((fmid - bmid) & 1) !== 0;
    fd[off + fmid] = xoff;
    bd[off + bmid] = xlim;
    for (;;) {
      if (fmin > dmin) fd[off + --fmin - 1] = -1;
      else ++fmin;
      if (fmax < dmax) fd[off + ++fmax + 1] = -1;
      else --fmax;
      for (let d = fmax; d >= fmin; d -= 2) {
        const tlo = fd[off + d - 1];
        const thi = fd[off + d + 1];
        let x = tlo < thi ? thi : tlo + 1;
        let y = x - d;
        while (x < xlim && y < ylim && a[x] === b[y]) {
          x++;
          y++;
        }
        fd[off + d] = x;
        if (odd && bmin <= d && d <= bmax && bd[off + d] <= x) return [x, y];
      }
      if (bmin > dmin) bd[off + --bmin - 1] = 0x7fffffff;
      else ++bmin;
      if (bmax < dmax) bd[off + ++bmax + 1] = 0x7fffffff;
      else --bmax;
      for (let d = bmax; d >= bmin; d -= 2) {
        const tlo = bd[off + d - 1];
        const thi = bd[off + d + 1];
        let x = tlo < thi ? tlo : thi - 1;
        let y = x - d;
        while (xoff < x && yoff < y && a[x - 1] === b[y - 1]) {
          x--;
          y--;
        }
        bd[off + d] = x;
        if (!odd && fmin <= d && d <= fmax && x <= fd[off + d]) return [x, y];
      }
    }
  };

  const seq = (xoff: number, xlim: number, yoff: number, ylim: number) => {
    while (xoff < xlim && yoff < ylim && a[xoff] === b[yoff]) {
      xoff++;
      yoff++;
    }
    while (xoff < xlim && yoff < ylim && a[xlim - 1] === b[ylim - 1]) {
      xlim--;
      ylim--;
    }
    if (xoff === xlim) {
      for (let y = yoff; y < ylim; y++) db[y] = true;
    } else if (yoff === ylim) {
      for (let x = xoff; x < xlim; x++) da[x] = true;
    } else {
      const [xmid, ymid] = diag(xoff, xlim, yoff, ylim);
      seq(xoff, xmid, yoff, ymid);
      seq(xmid, xlim, ymid, ylim);
    }
  };
  seq(0, a.length, 0, b.length);
  shiftBoundaries(a, da, db);
  shiftBoundaries(b, db, da);
  return { da, db };
}

/**
 * GNU diff's final pass: slides each run of changed lines over equal neighbours, first up (merging with
 * earlier runs) and then down as far as possible, then back up to line up with a run of changes in the other
 * file when there is one. Only which of several equivalent lines is reported changes, never the line counts.
 */
function shiftBoundaries(lines: number[], mine: boolean[], other: boolean[]): void {
  const n = lines.length;
  // Padded views: index -1 and n read as "unchanged".
  const ch = (k: number) => k >= 0 && k < n && mine[k];
  const oc = (k: number) => k >= 0 && k < other.length && other[k];
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < n && !mine[i]) {
      while (oc(j++));
      i++;
    }
    if (i === n) break;
    let start = i;
    while (ch(++i));
    while (oc(j)) j++;
    let runlength: number;
    let corresponding: number;
    do {
      runlength = i - start;
      while (start > 0 && lines[start - 1] === lines[i - 1]) {
        mine[--start] = true;
        mine[--i] = false;
        while (ch(start - 1)) start--;
        while (oc(--j));
      }
      corresponding = oc(j - 1) ? i : n;
      while (i !== n && lines[start] === lines[i]) {
        mine[start++] = false;
        mine[i++] = true;
        while (ch(i)) i++;
        while (oc(++j)) corresponding = i;
      }
    } while (runlength !== i - start);
    while (corresponding < i) {
      mine[--start] = true;
      mine[--i] = false;
      while (oc(--j));
    }
  }
}

/** A unified diff with three lines of context, or "" when the texts are equal. */
export function unifiedDiff(oldText: string, newText: string, oldLabel: string, newLabel: string): string {
  if (oldText === newText) return '';
  const A = splitLines(oldText);
  const B = splitLines(newText);
  const ids = new Map<string, number>();
  const id = (l: string) => {
    let v = ids.get(l);
    if (v === undefined) ids.set(l, (v = ids.size));
    return v;
  };
  const { da, db } = compare(A.map(id), B.map(id));

  // Walk both files in step, collecting changes as [aStart, aEnd, bStart, bEnd) groups.
  const changes: [number, number, number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < A.length || j < B.length) {
    if ((i < A.length && da[i]) || (j < B.length && db[j])) {
      const i0 = i;
      const j0 = j;
      while (i < A.length && da[i]) i++;
      while (j < B.length && db[j]) j++;
      changes.push([i0, i, j0, j]);
    } else {
      i++;
      j++;
    }
  }
  if (changes.length === 0) return '';

  const ctx = 3;
  let out = `--- ${oldLabel}\n+++ ${newLabel}\n`;
  const line = (prefix: string, l: string) => prefix + l + (l.endsWith('\n') ? '' : '\n\\ No newline at end of file\n');
  let k = 0;
  while (k < changes.length) {
    let last = k;
    while (last + 1 < changes.length && changes[last + 1][0] - changes[last][1] <= 2 * ctx) last++;
    const aStart = Math.max(0, changes[k][0] - ctx);
    const aEnd = Math.min(A.length, changes[last][1] + ctx);
    const bStart = changes[k][2] - (changes[k][0] - aStart);
    const bEnd = changes[last][3] + (aEnd - changes[last][1]);
    const range = (start: number, count: number) => (count === 1 ? `${start + 1}` : count === 0 ? `${start},0` : `${start + 1},${count}`);
    out += `@@ -${range(aStart, aEnd - aStart)} +${range(bStart, bEnd - bStart)} @@\n`;
    let a = aStart;
    for (let c = k; c <= last; c++) {
      const [i0, i1, j0, j1] = changes[c];
      for (; a < i0; a++) out += line(' ', A[a]);
      for (let x = i0; x < i1; x++) out += line('-', A[x]);
      for (let y = j0; y < j1; y++) out += line('+', B[y]);
      a = i1;
    }
    for (; a < aEnd; a++) out += line(' ', A[a]);
    k = last + 1;
  }
  return out;
}
