// Go's time.Time as templates see it (docs/notifications.md, "Templates"): `{{.Time}}` prints Go's
// String() form, `{{.Time.Format "2006-01-02"}}` takes Go's reference-time layouts, and JSON is RFC 3339.
import { GoStruct } from './values.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const LAYOUT =
  /January|Jan|Monday|Mon|MST|2006|002|__2|_2|06|01|02|03|04|05|15|1|2|3|4|5|PM|pm|Z07:00:00|Z070000|Z07:00|Z0700|Z07|-07:00:00|-070000|-07:00|-0700|-07|[.,](?:0+|9+)(?![0-9])/g;

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339Nano = '2006-01-02T15:04:05.999999999Z07:00';
export const RFC1123 = 'Mon, 02 Jan 2006 15:04:05 MST';

export class GoTime extends GoStruct {
  /** Seconds since the epoch, nanoseconds within the second, the zone's offset east of UTC in seconds. */
  private readonly seconds: number;
  private readonly nanos: number;
  private readonly offset: number;
  private readonly zone: string;

  constructor(seconds: number, nanos: number, offset = 0, zone = offset === 0 ? 'UTC' : '') {
    super();
    this.seconds = seconds;
    this.nanos = nanos;
    this.offset = offset;
    this.zone = zone;
  }

  get goType(): string {
    return 'time.Time';
  }

  /** From a Date (UTC) or an RFC 3339 string (its offset kept, as Go's time.Parse does). */
  static from(value: Date | string): GoTime {
    if (value instanceof Date) {
      const ms = value.getTime();
      return new GoTime(Math.floor(ms / 1000), (((ms % 1000) + 1000) % 1000) * 1e6);
    }
    return GoTime.parseRFC3339(value);
  }

  static parseRFC3339(s: string): GoTime {
    const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(s);
    if (!m) throw new RangeError(`not an RFC 3339 time: ${JSON.stringify(s)}`);
    const [, y, mo, d, h, mi, se, frac, z, sign, oh, om] = m;
    const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se)) / 1000;
    const offset = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
    const nanos = frac ? Number(frac.padEnd(9, '0')) : 0;
    // Go names a zero offset UTC (the local zone where Watchtower runs; other offsets stay unnamed).
    return new GoTime(utc - offset, nanos, offset, offset === 0 ? 'UTC' : '');
  }

  /** Go's Time.String(): `2006-01-02 15:04:05.999999999 -0700 MST`. */
  String(): string {
    return this.Format('2006-01-02 15:04:05.999999999 -0700 MST');
  }

  Unix(): number {
    return this.seconds;
  }

  UTC(): GoTime {
    return new GoTime(this.seconds, this.nanos, 0, 'UTC');
  }

  MarshalJSON(): string {
    return this.Format(RFC3339Nano);
  }

  /** JSON.stringify gives what Go's encoding/json does: the RFC 3339 text. */
  toJSON(): string {
    return this.MarshalJSON();
  }

  /** Go's Time.Format with the reference time Mon Jan 2 15:04:05 MST 2006. */
  Format(layout: string): string {
    const local = new Date((this.seconds + this.offset) * 1000);
    const year = local.getUTCFullYear();
    const month = local.getUTCMonth();
    const day = local.getUTCDate();
    const hour = local.getUTCHours();
    const minute = local.getUTCMinutes();
    const second = local.getUTCSeconds();
    const p2 = (n: number) => String(n).padStart(2, '0');
    const zoneText = (colon: boolean, seconds: boolean, z: boolean, short: boolean) => {
      if (z && this.offset === 0) return 'Z';
      const sign = this.offset < 0 ? '-' : '+';
      const abs = Math.abs(this.offset);
      const parts = [p2(Math.floor(abs / 3600))];
      if (!short) parts.push(p2(Math.floor(abs / 60) % 60));
      if (seconds) parts.push(p2(abs % 60));
      return sign + parts.join(colon ? ':' : '');
    };
    return layout.replace(LAYOUT, (tok) => {
      switch (tok) {
        case 'January':
          return MONTHS[month] as string;
        case 'Jan':
          return (MONTHS[month] as string).slice(0, 3);
        case 'Monday':
          return DAYS[local.getUTCDay()] as string;
        case 'Mon':
          return (DAYS[local.getUTCDay()] as string).slice(0, 3);
        case 'MST':
          return this.zone !== '' ? this.zone : zoneText(false, false, false, false);
        case '2006':
          return String(year).padStart(4, '0');
        case '06':
          return p2(year % 100);
        case '01':
          return p2(month + 1);
        case '1':
          return String(month + 1);
        case '02':
          return p2(day);
        case '_2':
          return String(day).padStart(2, ' ');
        case '2':
          return String(day);
        case '002':
        case '__2': {
          const yday = Math.floor((Date.UTC(year, month, day) - Date.UTC(year, 0, 1)) / 86400000) + 1;
          return String(yday).padStart(3, tok === '002' ? '0' : ' ');
        }
        case '15':
          return p2(hour);
        case '03':
          return p2(hour % 12 === 0 ? 12 : hour % 12);
        case '3':
          return String(hour % 12 === 0 ? 12 : hour % 12);
        case '04':
          return p2(minute);
        case '4':
          return String(minute);
        case '05':
          return p2(second);
        case '5':
          return String(second);
        case 'PM':
          return hour >= 12 ? 'PM' : 'AM';
        case 'pm':
          return hour >= 12 ? 'pm' : 'am';
        case 'Z07:00:00':
          return zoneText(true, true, true, false);
        case 'Z070000':
          return zoneText(false, true, true, false);
        case 'Z07:00':
          return zoneText(true, false, true, false);
        case 'Z0700':
          return zoneText(false, false, true, false);
        case 'Z07':
          return zoneText(false, false, true, true);
        case '-07:00:00':
          return zoneText(true, true, false, false);
        case '-070000':
          return zoneText(false, true, false, false);
        case '-07:00':
          return zoneText(true, false, false, false);
        case '-0700':
          return zoneText(false, false, false, false);
        case '-07':
          return zoneText(false, false, false, true);
      }
      // Fractional seconds: .000 keeps the digits, .999 drops trailing zeros (and the point).
      const digits = String(this.nanos).padStart(9, '0').slice(0, tok.length - 1);
      if (tok[1] === '0') return tok[0] + digits;
      const trimmed = digits.replace(/0+$/, '');
      return trimmed === '' ? '' : tok[0] + trimmed;
    });
  }
}
