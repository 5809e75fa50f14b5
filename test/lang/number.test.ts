// Tests for server/lang/number.ts (Num, Go big.Float semantics as go-cty uses them).
//
// Expected strings come from Terraform 1.11.4: the shared conformance corpus and `terraform console`
// runs (random expressions generated and checked against the real binary). Inputs are small expressions
// in a test-only mini language evaluated by `evalExpr`:
//   literals (Num.parse, 512 bits), + - * / % with HCL precedence, unary -, parentheses,
//   tonumber("…")  (Num.parse of the string),
//   pow(x, 1)      (x converted to the nearest float64: Num.from(x.toNumber()), as Terraform's pow does),
//   pow(x, 0.5)    (Num.from(Math.sqrt(x))), pow(2, k) for integer k (Num.from(2 ** k)),
//   int(n)         (Num.fromInt(n), an integer from Go code such as length()),
//   floor(x) ceil(x) abs(x) parseint("s", base).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoPanicError, NaNError, Num } from '../../server/lang/number';

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}
  parse(): Num {
    const v = this.sum();
    this.ws();
    if (this.i !== this.s.length) throw new Error(`trailing input at ${this.i} in ${this.s}`);
    return v;
  }
  private ws(): void {
    while (this.s[this.i] === ' ') this.i++;
  }
  private eat(t: string): boolean {
    this.ws();
    if (this.s.startsWith(t, this.i)) {
      this.i += t.length;
      return true;
    }
    return false;
  }
  private sum(): Num {
    let v = this.product();
    for (;;) {
      if (this.eat('+')) v = v.add(this.product());
      else if (this.eat('-')) v = v.sub(this.product());
      else return v;
    }
  }
  private product(): Num {
    let v = this.unary();
    for (;;) {
      if (this.eat('*')) v = v.mul(this.unary());
      else if (this.eat('/')) v = v.div(this.unary());
      else if (this.eat('%')) v = v.mod(this.unary());
      else return v;
    }
  }
  private unary(): Num {
    if (this.eat('-')) return this.unary().neg();
    return this.primary();
  }
  private str(): string {
    this.ws();
    const m = /^"([^"]*)"/.exec(this.s.slice(this.i))!;
    this.i += m[0].length;
    return m[1];
  }
  private primary(): Num {
    if (this.eat('(')) {
      const v = this.sum();
      assert.ok(this.eat(')'));
      return v;
    }
    this.ws();
    const fn = /^([a-z]+)\(/.exec(this.s.slice(this.i));
    if (fn) {
      this.i += fn[0].length;
      let r: Num;
      switch (fn[1]) {
        case 'tonumber': {
          const p = Num.parse(this.str());
          if (p === undefined) throw new Error('tonumber failed');
          r = p;
          break;
        }
        case 'parseint': {
          const s = this.str();
          assert.ok(this.eat(','));
          const p = Num.parseInt(s, this.sum().toNumber());
          if (p === undefined) throw new Error('parseint failed');
          r = p;
          break;
        }
        case 'pow': {
          const x = this.sum();
          assert.ok(this.eat(','));
          const y = this.sum().toString();
          if (y === '1') r = Num.from(x.toNumber());
          else if (y === '0.5') r = Num.from(Math.sqrt(x.toNumber()));
          else if (x.toString() === '2') r = Num.from(2 ** Number(y));
          else throw new Error('unsupported pow');
          break;
        }
        case 'int':
          r = Num.fromInt(BigInt(this.sum().toBigInt()!));
          break;
        case 'floor':
          r = this.sum().floor();
          break;
        case 'ceil':
          r = this.sum().ceil();
          break;
        case 'abs':
          r = this.sum().abs();
          break;
        default:
          throw new Error('unknown function ' + fn[1]);
      }
      assert.ok(this.eat(')'));
      return r;
    }
    const m = /^[0-9.]+(?:[eE][+-]?[0-9]+)?/.exec(this.s.slice(this.i));
    if (!m) throw new Error(`bad input at ${this.i} in ${this.s}`);
    this.i += m[0].length;
    const n = Num.parse(m[0]);
    if (n === undefined) throw new Error('bad literal ' + m[0]);
    return n;
  }
}

function evalExpr(s: string): Num {
  return new Parser(s).parse();
}

/** Evaluates `input` and compares its printed form; an expected "ERR <Class>" means that error class is thrown. */
function check(input: string, expected: string): void {
  let got: string;
  try {
    got = evalExpr(input).toString();
  } catch (e) {
    if (e instanceof NaNError) got = 'ERR NaNError';
    else if (e instanceof GoPanicError) got = 'ERR GoPanicError';
    else throw e;
  }
  assert.equal(got, expected, input);
}

function table(name: string, cases: ReadonlyArray<readonly [string, string]>): void {
  test(name, () => {
    for (const [input, expected] of cases) check(input, expected);
  });
}

// Number cases of the conformance corpus (pure arithmetic on literals, tonumber, floor/ceil/abs, parseint).
table('corpus arithmetic', [
  ['42', '42'],
  ['-17', '-17'],
  ['3.14159', '3.14159'],
  ['1e3', '1000'],
  ['1.5e-3', '0.0015'],
  ['2.50', '2.5'],
  ['0.1+0.2', '0.3'],
  ['0.1*3', '0.3'],
  ['1e40', '10000000000000000000000000000000000000000'],
  ['-1e40', '-10000000000000000000000000000000000000000'],
  ['pow(2,63)', '9223372036854776000'],
  ['pow(2,64)', '18446744073709550000'],
  ['9223372036854775807', '9223372036854775807'],
  ['9223372036854775807 + 1', '9223372036854775808'],
  ['-9223372036854775808', '-9223372036854775808'],
  ['18446744073709551616', '18446744073709551616'],
  ['1e308 * 10', '1' + '0'.repeat(309)],
  ['1e308 + 1e308', '2' + '0'.repeat(308)],
  ['1/3', '0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335'],
  ['2/3', '0.6666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666666667'],
  ['10 / 3', '3.3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333332'],
  ['10/4', '2.5'],
  ['1e-10', '0.0000000001'],
  ['1234567.891', '1234567.891'],
  ['-0', '-0'],
  ['007', '7'],
  ['  1   +   1  ', '2'],
  ['1 + 2 * 3', '7'],
  ['(1 + 2) * 3', '9'],
  ['10 - 4 - 3', '3'],
  ['2 * 3 % 4', '2'],
  ['-2 * -3', '6'],
  ['-10 % 3', '-1'],
  ['10 % -3', '1'],
  ['5.5 % 2', '1.5'],
  ['5 % 0', '5'],
  ['7 / 0', '+Inf'],
  ['-7 / 0', '-Inf'],
  ['0 / 0', 'ERR NaNError'],
  ['1 / 0 - 1 / 0', 'ERR NaNError'],
  ['--5', '5'],
  ['-(3 - 5)', '2'],
  ['2 * (3 + (4 - 1)) / 3', '4'],
  ['0.3 - 0.1', '0.20000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002'],
  ['1 - 0.9', '0.10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003'],
  ['100 * 1.1', '110'],
  ['3 * (1/3)', '1'],
  ['2 - - 2', '4'],
  ['tonumber("42")', '42'],
  ['tonumber("3.14")', '3.14'],
  ['tonumber("1e3")', '1000'],
  ['tonumber("-0")', '-0'],
  ['tonumber(".5")', '0.5'],
  ['abs(-5)', '5'],
  ['abs(0)', '0'],
  ['abs(-0.5)', '0.5'],
  ['abs(-1e40)', '10000000000000000000000000000000000000000'],
  ['ceil(1.2)', '2'],
  ['ceil(-1.2)', '-1'],
  ['ceil(5)', '5'],
  ['ceil(1e40)', '10000000000000000000000000000000000000000'],
  ['ceil(1/0)', '+Inf'],
  ['floor(1.8)', '1'],
  ['floor(-1.2)', '-2'],
  ['floor(-0.5)', '-1'],
  ['floor(2)', '2'],
  ['parseint("100", 10)', '100'],
  ['parseint("FF", 16)', '255'],
  ['parseint("ff", 16)', '255'],
  ['parseint("-1010", 2)', '-10'],
  ['parseint("zz", 36)', '1295'],
  ['parseint("12", 37)', '39'],
  ['parseint("123456789012345678901234567890", 10)', '123456789012345678901234567890'],
  ['parseint("+5", 10)', '5'],
  ['pow(2, 10)', '1024'],
  ['pow(2, -1)', '0.5'],
  ['pow(2, 0.5)', '1.4142135623730951'],
]);

// Checked with `terraform console`.
table('terraform console corner cases', [
  ['int(1) / int(3)', '0.33333333333333333334'],
  ['int(1) / 3', '0.33333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333335'],
  ['pow(2, 0.5) * pow(2, 0.5)', '2.00000000000000027343234630647693'],
  ['0.1 + pow(2, 0.5)', '1.5142135623730951454746218587388284504413604736328125'],
  ['1e-40', '0.0000000000000000000000000000000000000001'],
  ['floor(-0)', '0'],
  ['ceil(-0.5)', '0'],
  ['1e400 % 7', '0'],
  ['0.7 % 0.1', '0'],
  ['-0 % 5', '-0'],
  ['5 % (1/0)', 'ERR NaNError'],
  ['(1/0) % 2', 'ERR GoPanicError'],
  ['(1/0) % 0', '+Inf'],
  ['parseint("-0", 10)', '0'],
  ['tonumber("+1")', '1'],
  ['tonumber("1.")', '1'],
  ['tonumber("Inf")', '+Inf'],
  ['tonumber("inf")', '+Inf'],
  ['tonumber("-Inf")', '-Inf'],
  ['tonumber("1p5")', '32'],
  ['tonumber("1.5p-3")', '0.1875'],
  ['tonumber("00.00")', '0'],
  ['tonumber("-0.0")', '-0'],
  ['tonumber("0e999999999999999")', '0'],
  ['tonumber("-00")', '-0'],
  ['tonumber("12345678901234567890.12345678901234567890e-5")', '123456789012345.678901234567890123456789'],
  ['tonumber("1e0000000000000000000000000005")', '100000'],
  ['tonumber("0.1e1")', '1'],
  ['pow(0.1, 1) * pow(0.1, 1)', '0.0100000000000000011102230246251566'],
  ['0 - 0', '0'],
  ['-0 - 0', '-0'],
  ['-0 + -0', '-0'],
  ['-0 * 5', '-0'],
  ['1 - 1', '0'],
]);

// Random expressions generated and checked against `terraform console` (literals and arithmetic).
table('random literal arithmetic', [
  ["(0.00004687068 / 17609.9752) * -55e81", "-146387906327091249963827319870388005997873296266765895275082499832254164673.66745638574209917115612973719576845287096145371062192069413022228446977029246469"],
  ["tonumber(\"-16\")", "-16"],
  ["0.000393481128897146", "0.000393481128897146"],
  ["0.7 * 0.00076", "0.000532"],
  ["(76 + 627.8) * -4.83", "-3399.354"],
  ["abs(-98 / 32)", "3.0625"],
  ["26 - 94803.57250291", "-94777.57250291"],
  ["(0.0000695791163 + 18.8027945) + -0.4", "18.4028640791163"],
  ["(59.513e0 % 0.7) - -256.944e15", "256944000000000000.013"],
  ["abs(-2176.57 / 296.96778)", "7.3293136379980346689462405652222608122672432679397071291707134019724294669273548800479297787793679166137147942446820325087118878687782223377903151648303397"],
  ["448.2 * 0.734733", "329.3073306"],
  ["tonumber(\"-0.1880335346443093\")", "-0.1880335346443093"],
  ["abs(-28741040329257717 / 0.1)", "287410403292577170"],
  ["8138809173684154857", "8138809173684154857"],
  ["8609987463532652 / 0.171", "50350803880307906.43274853801169590643274853801169590643274853801169590643274853801169590643274853801169590643274853801169590643274853801169590643274853801"],
  ["89225.15495", "89225.15495"],
  ["4542.2846490", "4542.284649"],
  ["(3.53 + 26) - -0.1", "29.63"],
  ["(0.284692699891621363 * 0.77) % -1040.38069880", "0.21921337891654844951000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002"],
  ["15", "15"],
  ["tonumber(\"-0.3\")", "-0.3"],
  ["6e-134 + 862.1121", "862.11210000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006"],
  ["498e-48 - 54", "-53.999999999999999999999999999999999999999999999502"],
  ["0.0000947175725", "0.0000947175725"],
  ["tonumber(\"-524908097063404628580409166\")", "-524908097063404628580409166"],
  ["0.72 * 403318607895", "290389397684.4"],
  ["(8.95040 - 5e187) % -60", "0"],
  ["45 % 0.764", "0.68799999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999985"],
  ["(0.9 % 2e-84) / -880.11634466", "-0"],
  ["68960119196052947236563 / 47", "1467236578639424409288.5744680851063829787234042553191489361702127659574468085106382978723404255319148936170212765957446808510638297872340425531914893617021"],
  ["9962.290700", "9962.2907"],
  ["tonumber(\"-0.126\")", "-0.126"],
  ["646.5e-45 - 0.63", "-0.6299999999999999999999999999999999999999993534999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"],
  ["0.0005596275516922196 % 0.65", "0.0005596275516922196"],
  ["7.745299 - 0.983", "6.762299"],
  ["974e92 + 39244.9380920", "97400000000000000000000000000000000000000000000000000000000000000000000000000000000000000039244.938092"],
  ["7.366e-39", "0.000000000000000000000000000000000000007366"],
  ["9", "9"],
  ["3.1114 / 0.44", "7.0713636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636366"],
  ["173230242376988726404260653412", "173230242376988726404260653412"],
  ["abs(-54.4e13 / 0.06064047)", "8970906722853566.273480400135421113985429202643053393220731963324162889898445707957078828709605977658154694381491436329566706854349908567661167533826832147"],
  ["80 - 99.1640", "-19.163999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999998"],
  ["4307.662416 / 0.00002707847980", "159080659.17348875692792768964822020769422957045025843732926247949857214657966138852447691690580059815617861974659301221185984007861475295965469967040025636"],
  ["(0.283135568746 * 0.0000540646475) - -572276", "572276.000015307624718964507035"],
  ["(54.5478 % 0.953) * -0.60", "-0.1360800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000014"],
]);

// Random expressions with float64 operands (results of pow), checked against `terraform console`.
table('random float64 operands', [
  ["pow(965.9092190, 1) - 1.987064", "963.9221550000000073268893174827098846435546875"],
  ["pow(52e26, 1)", "5200000000000000000000000000"],
  ["pow(316e93, 0.5)", "562138772902207800000000000000000000000000000000"],
  ["pow(4.9, 1) * pow(687922437597593, 1)", "3370819944228205.944399145400675"],
  ["pow(98, 0.5)", "9.899494936611665"],
  ["pow(87407701, 1) / 36.85851", "2371438.8074829937509682295893132956269800379885133718102006836413083437176380705568401978267705341317378266240279381884943260050392704425653668582913416738"],
  ["pow(0.00066839489985070609088, 1) + 43", "43.000668394899850706099113384350829392133164219558238983154296875"],
  ["pow(34, 1) - 87938551550", "-87938551516"],
  ["pow(35955999, 1)", "35955999"],
  ["pow(19, 1) - 77402664622089e129", "-77402664622088999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999981"],
  ["pow(0.2, 1) - pow(67, 1)", "-66.8"],
  ["pow(0.7, 1) % 0.665", "0.03499999999999992"],
  ["pow(0.00012989616296, 1) % 517003681565143162118588", "0.00012989616296"],
  ["pow(0.5, 1)", "0.5"],
  ["pow(21e-21, 1)", "0.000000000000000000021"],
  ["pow(56, 1)", "56"],
  ["pow(78e-288, 1) + 29e105", "29000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"],
  ["pow(0.740, 1)", "0.74"],
  ["pow(3e-101, 1) + 82539869364e52", "825398693640000000000000000000000000000000000000000000000000000"],
  ["pow(397823660742e-98, 0.5)", "0.00000000000000000000000000000000000000000006307326380820958"],
  ["pow(1.2333, 0.5)", "1.1105404089901456"],
  ["pow(46, 1)", "46"],
  ["pow(15, 1)", "15"],
  ["pow(0.79, 1) * pow(0.01, 1)", "0.007900000000000000519723153402651"],
  ["pow(995e-68, 1) % pow(0.8, 1)", "0.00000000000000000000000000000000000000000000000000000000000000000995"],
  ["pow(13, 1) % pow(92, 1)", "13"],
  ["pow(886047522, 1)", "886047522"],
  ["pow(2, -276)", "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000008236092143148846"],
  ["pow(0.26, 1)", "0.26"],
  ["pow(853.780, 1) * 0.9", "768.4019999999999754436430521309375762939453125"],
  ["pow(68161757e82, 1) / 43", "15851571395348837889768256740694505712682101192969767752451573288193650588253483419352706.976744186046511627906976744186046511627906976744186046511627906977"],
  ["pow(78, 0.5)", "8.831760866327848"],
  ["pow(792.3678442, 1) * 0.000038712", "0.030674143984670401390758343040943145751953125"],
  ["pow(0.9, 1) / 0.0328450478", "27.40139108581233430887138159388310613061836864845135801568235196783607664592894883836947864024725212913223405325657647543444890343560407301340569216647631"],
  ["pow(45, 0.5)", "6.708203932499369"],
]);

// Random expressions with integers from Go code (length(...) in Terraform, int(n) here).
table('random Go integers', [
  ["int(6) % 603624537059", "6"],
  ["int(6) - int(1)", "5"],
  ["int(2) * int(7)", "14"],
  ["int(7) - 0.0777180807121921", "6.9222819192878079"],
  ["int(9) + 5.4578", "14.4578"],
  ["int(3) / int(4)", "0.75"],
  ["int(6) + int(3)", "9"],
  ["int(4) % int(4)", "0"],
  ["int(4) * int(2)", "8"],
  ["int(8) % 6.3e-31", "0"],
  ["int(6) + 71", "77"],
  ["int(5) % 3467935790667142625", "5"],
  ["int(2) - 96", "-94"],
  ["int(5) / int(1)", "5"],
  ["int(9) + 774357823346340270986832", "774357823346340270986841"],
  ["int(1) + int(4)", "5"],
  ["int(4) + int(4)", "8"],
  ["int(6) % 603624537059", "6"],
  ["int(6) - int(1)", "5"],
  ["int(2) * int(7)", "14"],
]);

test('parse rejects what tonumber rejects', () => {
  for (const s of [' 1', '1 ', '.', '-', '+', '', 'e5', '1e', '1e+', '0x10', '0b1', '0o7', '1_000', 'INF', 'Infinity', 'NaN', 'nan', '0x1p3', '1p', '3e2p1', '1e999999999999999999', '0e99999999999999999999', '1.2.3', '1e5.5', '\u0661', '\uff11', '++1', '--1', '1e--5', '\t1', '1\n', 'abc']) {
    assert.equal(Num.parse(s), undefined, JSON.stringify(s));
  }
});

test('parseInt follows big.Int SetString', () => {
  for (const [s, base] of [['', 10], ['9', 8], ['1.5', 10], ['0x10', 16], ['12', 1], ['12', 63], ['+', 10], ['1_0', 10], [' 1', 10]] as const) {
    assert.equal(Num.parseInt(s, base), undefined, `${s} base ${base}`);
  }
  assert.equal(Num.parseInt('Zz', 62)!.toString(), String(61 * 62 + 35));
  assert.equal(Num.parseInt('ZZ', 36)!.toString(), '1295');
  assert.equal(Num.parseInt('1'.repeat(100), 2)!.toString(), (2n ** 100n - 1n).toString());
  assert.equal(Num.parseInt('123456789012345678901234567890', 10)!.precision, 97);
  assert.equal(Num.parseInt('5', 10)!.precision, 64);
});

test('precision follows go-cty', () => {
  assert.equal(Num.parse('1')!.precision, 512);
  assert.equal(Num.from(0.5).precision, 53);
  assert.equal(Num.from(5n).precision, 64);
  assert.equal(Num.fromInt(2n ** 100n).precision, 101);
  assert.equal(Num.ZERO.precision, 64);
  assert.equal(Num.parse('1')!.add(Num.from(0.5)).precision, 512);
  // 0.1 as a float64 has a 52-bit odd mantissa; the exact 104-bit product is kept.
  assert.equal(Num.from(0.1).mul(Num.from(0.1)).precision, 104);
  assert.equal(Num.fromInt(3).mul(Num.fromInt(5)).precision, 64);
  assert.equal(Num.parse('2')!.neg().precision, 512);
});

test('comparison and equality', () => {
  const p = (s: string): Num => Num.parse(s)!;
  assert.equal(p('1').cmp(p('2')), -1);
  assert.equal(p('-0').cmp(p('0')), 0);
  assert.equal(p('-Inf').cmp(p('-1e1000')), -1);
  assert.equal(p('Inf').cmp(p('Inf')), 0);
  assert.equal(p('0.1').cmp(Num.from(0.1)), -1);
  // cty's equality: integers by value, non-integers by printed form.
  assert.ok(p('0.1').equals(Num.from(0.1)));
  assert.ok(!p('0.3').sub(p('0.1')).equals(p('0.2')));
  assert.ok(p('9223372036854775808').equals(Num.from(2 ** 63)));
  assert.ok(!p('9223372036854775807').equals(Num.from(2 ** 63)));
  assert.ok(p('-0').equals(p('0')));
  assert.ok(p('Inf').equals(Num.POS_INF));
  assert.ok(!p('Inf').equals(Num.NEG_INF));
  assert.ok(!p('1.5').equals(p('-1.5')));
  assert.equal(p('-0').sign(), 0);
  assert.equal(p('-Inf').sign(), -1);
});

test('predicates and conversions', () => {
  const p = (s: string): Num => Num.parse(s)!;
  assert.ok(p('1e40').isInteger());
  assert.ok(!p('1.5').isInteger());
  assert.ok(!p('Inf').isInteger());
  assert.ok(p('-0').isInteger());
  assert.equal(p('1e40').toBigInt(), 10n ** 40n);
  assert.equal(p('-12').toBigInt(), -12n);
  assert.equal(p('1.5').toBigInt(), undefined);
  assert.equal(p('Inf').toBigInt(), undefined);
  assert.equal(p('0.1').toNumber(), 0.1);
  assert.equal(p('1e400').toNumber(), Infinity);
  assert.equal(p('-1e400').toNumber(), -Infinity);
  assert.equal(p('1e-400').toNumber(), 0);
  assert.equal(p('4.9406564584124654e-324').toNumber(), 5e-324);
  assert.equal(p('2.4703282292062328e-324').toNumber(), 5e-324);
  assert.equal(p('2.4703282292062327e-324').toNumber(), 0);
  assert.equal(p('1.7976931348623157e308').toNumber(), 1.7976931348623157e308);
  assert.equal(p('1.7976931348623159e308').toNumber(), Infinity);
  assert.equal(p('2.2250738585072011e-308').toNumber(), 2.225073858507201e-308);
  assert.ok(Object.is(p('-0').toNumber(), -0));
  assert.equal(p('9007199254740993').toNumber(), 9007199254740992);
  assert.equal(p('9007199254740995').toNumber(), 9007199254740996);
  for (const x of [0.1, 1e-320, 5e-324, 1.7976931348623157e308, 123.456, -2.5, 2 ** 60]) {
    assert.equal(Num.from(x).toNumber(), x);
    assert.equal(Num.fromFloat64(x).toString(), Num.from(x).toString());
  }
  assert.equal(Num.from(-0).toString(), '-0');
  assert.equal(Num.from(-Infinity).toString(), '-Inf');
  // big.Float gives a float64 53 bits even when subnormal, so pow(2, -1074) prints 16 digits in Terraform.
  assert.equal(Num.from(5e-324).toString(), '0.' + '0'.repeat(323) + '4940656458412465');
  assert.throws(() => Num.from(NaN), NaNError);
  assert.equal(Num.fromInt(255).toStringBase(16), 'ff');
  assert.equal(Num.fromInt(-61).toStringBase(62), '-Z');
  assert.equal(p('1.5').toStringBase(10), undefined);
});

test('exact and shortest decimal forms', () => {
  assert.deepEqual(Num.from(0.1).exactDecimal(), { neg: false, inf: false, mant: '1000000000000000055511151231257827021181583404541015625', exp: 0 });
  assert.deepEqual(Num.from(0.1).shortestDecimal(), { neg: false, inf: false, mant: '1', exp: 0 });
  assert.deepEqual(Num.parse('-1250')!.shortestDecimal(), { neg: true, inf: false, mant: '125', exp: 4 });
  assert.deepEqual(Num.parse('-0')!.exactDecimal(), { neg: true, inf: false, mant: '', exp: 0 });
});
