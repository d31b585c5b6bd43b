// Go's strconv float formats for templates (docs/notifications.md, "Templates"): shortest %g, %e and %f
// with Go's round-half-even, the `#` flag's kept zeros, and the binary (%b) and hex (%x) forms.

/** Go's strconv.FormatFloat(f, 'g', prec, 64); prec -1 is the shortest exact form. */
export function formatG(f: number, prec = -1): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const exp = prec < 0 ? f.toExponential() : f.toExponential(Math.max(prec, 1) - 1);
  const [mant, e] = exp.split('e') as [string, string];
  const negative = mant.startsWith('-');
  const digits = mant.replace(/^-/, '').replace('.', '').replace(/0+$/, '') || '0';
  const x = Number(e);
  let eprec = prec < 0 ? 6 : Math.max(prec, 1);
  if (prec >= 0 && eprec > digits.length && digits.length >= x + 1) eprec = digits.length;
  if (prec < 0) eprec = 6;
  let out: string;
  if (x < -4 || x >= eprec) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  } else if (x < 0) {
    out = `0.${'0'.repeat(-x - 1)}${digits}`;
  } else if (digits.length <= x + 1) {
    out = digits + '0'.repeat(x + 1 - digits.length);
  } else {
    out = `${digits.slice(0, x + 1)}.${digits.slice(x + 1)}`;
  }
  return negative ? `-${out}` : out;
}

/**
 * Rounds like Go (round half to even on an exact tie) where JavaScript rounds a tie away from zero:
 * `format(p)` is toFixed or toExponential; a tie shows as `5` then only zeros in a longer expansion.
 */
export function roundEven(f: number, prec: number, format: (p: number) => string): string {
  const rounded = format(prec);
  if (prec >= 90) return rounded;
  const long = format(Math.min(100, prec + 30));
  const [mantissa] = long.split('e') as [string];
  const fracStart = mantissa.indexOf('.') + 1;
  const rest = mantissa.slice(fracStart + prec);
  if (!/^50*$/.test(rest)) return rounded;
  const truncated = format(Math.min(100, prec + 30)).replace(/^(-?\d+(?:\.\d*)?)/, (m) => m.slice(0, fracStart + prec));
  const lastDigit = Number(truncated.replace(/e.*$/, '').replace(/\.$/, '').slice(-1));
  if (lastDigit % 2 === 1) return rounded;
  return truncated.replace(/\.(?=e|$)/, '');
}

export function formatE(f: number, prec: number, upper: boolean): string {
  const s = roundEven(f, prec, (p) => f.toExponential(p)).replace(/e([+-])(\d)$/, 'e$10$2');
  return upper ? s.toUpperCase() : s;
}


/** The sign, 53-bit mantissa and exponent of a float64, as strconv reads them (value = mant × 2^(exp−52)). */
function floatParts(f: number): { negative: boolean; mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, f);
  const bits = view.getBigUint64(0);
  let exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (exp === 0) exp++;
  else mant |= 1n << 52n;
  return { negative: bits >> 63n === 1n, mant, exp: exp - 1023 };
}

/** strconv's 'b' format: `7074231776675438p-51`. */
export function formatB(f: number): string {
  const { mant, exp } = floatParts(Math.abs(f));
  const e = exp - 52;
  return `${mant}p${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

/** strconv's 'x' format: `0x1.921f9f01b866ep+01`, rounded to prec hex digits when prec ≥ 0. */
export function formatX(f: number, prec: number, upper: boolean): string {
  let { mant, exp } = floatParts(Math.abs(f));
  if (mant === 0n) exp = 0;
  mant <<= 8n; // the leading 1 moves from bit 52 to bit 60
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  let out = `0x${(mant >> 60n) & 1n}`;
  mant = (mant << 4n) & ((1n << 64n) - 1n);
  const digit = () => {
    const d = ((mant >> 60n) & 15n).toString(16);
    mant = (mant << 4n) & ((1n << 64n) - 1n);
    return d;
  };
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) out += digit();
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) out += digit();
  }
  out += `p${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return upper ? out.toUpperCase() : out;
}

/**
 * The `#` flag on %e %f %g %v %x: the decimal point always, and for %g/%v/%x the trailing zeros up to
 * the precision (6 when none was given). Like Go, the `x` of a hex float's `0x` counts as a digit.
 */
export function keepZeros(num: string, verb: string, prec: number): string {
  let digits = ['v', 'g', 'G', 'x', 'X'].includes(verb) ? (prec < 0 ? 6 : prec) : 0;
  const e = num.search(verb === 'x' || verb === 'X' ? /[pP]/ : /[eE]/);
  const body = e >= 0 ? num.slice(0, e) : num;
  const tail = e >= 0 ? num.slice(e) : '';
  let sawNonzero = false;
  for (const ch of body) {
    if (ch === '.') continue;
    if (ch !== '0') sawNonzero = true;
    if (sawNonzero) digits--;
  }
  let out = body;
  if (!body.includes('.')) {
    if (body === '0') digits--;
    out += '.';
  }
  if (digits > 0) out += '0'.repeat(digits);
  return out + tail;
}
