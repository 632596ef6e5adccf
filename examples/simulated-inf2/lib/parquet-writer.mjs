// A small Parquet writer for the simulated profiler's tables, with nothing to install: one
// row group, one PLAIN-encoded uncompressed data page per column, every column REQUIRED
// (a field with no value is left out of the table instead). Written from the format's
// specification (apache/parquet-format: README.md, Encodings.md, src/main/thrift/
// parquet.thrift) and Thrift's compact protocol (apache/thrift, doc/specs/
// thrift-compact-protocol.md). Types: BOOLEAN, INT32, INT64, FLOAT, DOUBLE, STRING.

const MAGIC = Buffer.from('PAR1');
const PHYSICAL = { BOOLEAN: 0, INT32: 1, INT64: 2, FLOAT: 4, DOUBLE: 5, STRING: 6 };
const UTF8 = 0; // ConvertedType
const REQUIRED = 0; // FieldRepetitionType
const PLAIN = 0;
const RLE = 3;
const UNCOMPRESSED = 0;
const DATA_PAGE = 0;

// Thrift compact protocol types.
const T = { TRUE: 1, FALSE: 2, I32: 5, I64: 6, BINARY: 8, LIST: 9, STRUCT: 12 };

class CompactWriter {
  constructor() {
    this.bytes = [];
    this.lastField = [0];
  }
  byte(b) {
    this.bytes.push(b & 0xff);
  }
  varint(value) {
    let v = BigInt(value);
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      this.byte(b);
    } while (v > 0n);
  }
  zigzag(value) {
    const v = BigInt(value);
    this.varint(v >= 0n ? v << 1n : (-v << 1n) - 1n);
  }
  fieldHeader(id, type) {
    const delta = id - this.lastField[this.lastField.length - 1];
    if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
    else {
      this.byte(type);
      this.zigzag(id);
    }
    this.lastField[this.lastField.length - 1] = id;
  }
  i32(id, value) {
    this.fieldHeader(id, T.I32);
    this.zigzag(value);
  }
  i64(id, value) {
    this.fieldHeader(id, T.I64);
    this.zigzag(value);
  }
  binary(id, text) {
    this.fieldHeader(id, T.BINARY);
    const bytes = Buffer.from(text);
    this.varint(bytes.length);
    for (const b of bytes) this.byte(b);
  }
  struct(id, write) {
    this.fieldHeader(id, T.STRUCT);
    this.structBody(write);
  }
  structBody(write) {
    this.lastField.push(0);
    write(this);
    this.byte(0); // stop
    this.lastField.pop();
  }
  list(id, elementType, items, writeItem) {
    this.fieldHeader(id, T.LIST);
    if (items.length < 15) this.byte((items.length << 4) | elementType);
    else {
      this.byte(0xf0 | elementType);
      this.varint(items.length);
    }
    for (const item of items) writeItem(item);
  }
  listItemI32(value) {
    this.zigzag(value);
  }
  listItemBinary(text) {
    const bytes = Buffer.from(text);
    this.varint(bytes.length);
    for (const b of bytes) this.byte(b);
  }
  buffer() {
    return Buffer.from(this.bytes);
  }
}

/** The PLAIN encoding of a REQUIRED column's values. */
function plainValues(type, values) {
  switch (type) {
    case 'BOOLEAN': {
      const out = Buffer.alloc(Math.ceil(values.length / 8));
      values.forEach((v, i) => {
        if (v) out[i >> 3] |= 1 << (i & 7);
      });
      return out;
    }
    case 'INT32':
      return fixed(values, 4, (b, v, at) => b.writeInt32LE(Number(v), at));
    case 'INT64':
      return fixed(values, 8, (b, v, at) => b.writeBigInt64LE(BigInt(v), at));
    case 'FLOAT':
      return fixed(values, 4, (b, v, at) => b.writeFloatLE(Number(v), at));
    case 'DOUBLE':
      return fixed(values, 8, (b, v, at) => b.writeDoubleLE(Number(v), at));
    case 'STRING':
      return Buffer.concat(
        values.map((v) => {
          const text = Buffer.from(String(v));
          const length = Buffer.alloc(4);
          length.writeUInt32LE(text.length);
          return Buffer.concat([length, text]);
        }),
      );
    default:
      throw new Error(`parquet-writer: unknown type ${type}`);
  }
}

function fixed(values, size, write) {
  const out = Buffer.alloc(values.length * size);
  values.forEach((v, i) => write(out, v, i * size));
  return out;
}

function pageHeader(numValues, size) {
  const w = new CompactWriter();
  w.structBody((h) => {
    h.i32(1, DATA_PAGE);
    h.i32(2, size);
    h.i32(3, size);
    h.struct(5, (d) => {
      d.i32(1, numValues);
      d.i32(2, PLAIN);
      d.i32(3, RLE);
      d.i32(4, RLE);
    });
  });
  return w.buffer();
}

/**
 * A Parquet file of `rows` with `columns` ([name, type] pairs, in order). Every row must
 * have a value for every column.
 */
export function parquetTable(columns, rows) {
  const parts = [MAGIC];
  let offset = MAGIC.length;
  const chunks = [];
  for (const [name, type] of columns) {
    const values = rows.map((row) => {
      const value = row[name];
      if (value === undefined || value === null) {
        throw new Error(`parquet-writer: row without a value for the required column ${name}`);
      }
      return value;
    });
    const data = plainValues(type, values);
    const header = pageHeader(values.length, data.length);
    chunks.push({ name, type, offset, size: header.length + data.length });
    parts.push(header, data);
    offset += header.length + data.length;
  }
  const footer = fileMetaData(columns, rows.length, chunks);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(footer.length);
  parts.push(footer, length, MAGIC);
  return Buffer.concat(parts);
}

function fileMetaData(columns, numRows, chunks) {
  const w = new CompactWriter();
  w.structBody((m) => {
    m.i32(1, 1); // version
    m.list(2, T.STRUCT, [null, ...columns], (column) =>
      m.structBody((s) => {
        if (column === null) {
          s.binary(4, 'schema');
          s.i32(5, columns.length);
          return;
        }
        const [name, type] = column;
        s.i32(1, PHYSICAL[type]);
        s.i32(3, REQUIRED);
        s.binary(4, name);
        if (type === 'STRING') s.i32(6, UTF8);
      }),
    );
    m.i64(3, numRows);
    m.list(4, T.STRUCT, [chunks], (group) =>
      m.structBody((g) => {
        g.list(1, T.STRUCT, group, (chunk) =>
          g.structBody((c) => {
            c.i64(2, chunk.offset);
            c.struct(3, (meta) => {
              meta.i32(1, PHYSICAL[chunk.type]);
              meta.list(2, T.I32, [PLAIN], (e) => meta.listItemI32(e));
              meta.list(3, T.BINARY, [chunk.name], (p) => meta.listItemBinary(p));
              meta.i32(4, UNCOMPRESSED);
              meta.i64(5, numRows);
              meta.i64(6, chunk.size);
              meta.i64(7, chunk.size);
              meta.i64(9, chunk.offset);
            });
          }),
        );
        g.i64(
          2,
          group.reduce((sum, chunk) => sum + chunk.size, 0),
        );
        g.i64(3, numRows);
      }),
    );
    m.binary(6, 'neuron-perf-gate simulator');
  });
  return w.buffer();
}
