// Display formatting at the edge. Every figure arrives in bytes (or seconds); the unit and
// its size in bytes come from the API's `units`, so no unit constant lives here.

const PARAM_SUFFIXES = [["T", 1e12], ["B", 1e9], ["M", 1e6], ["k", 1e3]];

/** Bytes → the display unit, as a number. */
export function inUnit(bytes, units) {
  return bytes / units.memory_bytes;
}

/** "74.5 GiB": bytes in the display unit with its label. */
export function fmtBytes(bytes, units, digits = 1) {
  const value = inUnit(bytes, units);
  return `${value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${units.memory}`;
}

/** Communication volume, always decimal GB like bandwidth. */
export function fmtVolume(bytes, units) {
  const value = bytes / units.comm_bytes;
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toLocaleString("en-US", { maximumFractionDigits: digits })} ${units.comm}`;
}

/** "30B", "1.5T", "350M": a parameter count in the share link's short form. */
export function fmtParams(count) {
  for (const [suffix, scale] of PARAM_SUFFIXES) {
    if (count >= scale) {
      const mantissa = count / scale;
      return `${Number(mantissa.toPrecision(12))}${suffix}`;
    }
  }
  return String(count);
}

/** "30 billion parameters": for screen readers. */
export function sayParams(count) {
  const words = [["trillion", 1e12], ["billion", 1e9], ["million", 1e6]];
  for (const [word, scale] of words) {
    if (count >= scale) return `${Number((count / scale).toPrecision(4))} ${word} parameters`;
  }
  return `${count.toLocaleString("en-US")} parameters`;
}

export function fmtCount(n) {
  return Math.round(n).toLocaleString("en-US");
}

/** Seconds to two significant figures, as the first seed writes them: 0.13 s, 1.2 s. */
export function fmtSeconds(seconds) {
  if (seconds === 0) return "0 s";
  if (seconds >= 100) return `${Math.round(seconds).toLocaleString("en-US")} s`;
  return `${Number(seconds.toPrecision(2))} s`;
}

/** Parse the text a person typed into a parameter-count box: 30B, 30e9, 350M, 1.5T. */
export function parseParams(text) {
  const match = /^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBtT]?)\s*$/.exec(text);
  if (!match) return null;
  const scale = { "": 1, k: 1e3, m: 1e6, b: 1e9, t: 1e12 }[match[2].toLowerCase()];
  return Number(match[1]) * scale;
}
