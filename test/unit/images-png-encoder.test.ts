import { inflateSync } from 'node:zlib';
import { crc32, encodePng } from '../../functions/shared/providers/demo/png-encoder.js';

describe('the demo PNG encoder', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(Buffer.from('123456789', 'ascii'))).toBe(0xcbf43926);
  });

  it('writes signature, IHDR with size and colour type, valid chunk CRCs and deflated rows', () => {
    const png = encodePng(3, 2, (x, y) => [x * 10, y * 20, 30]);

    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    let offset = 8;
    const chunks: { type: string; data: Buffer }[] = [];
    while (offset < png.length) {
      const length = png.readUInt32BE(offset);
      const typeAndData = png.subarray(offset + 4, offset + 8 + length);
      expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(typeAndData));
      chunks.push({ type: typeAndData.subarray(0, 4).toString('ascii'), data: typeAndData.subarray(4) });
      offset += 12 + length;
    }
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect([
      chunks[0]!.data.readUInt32BE(0),
      chunks[0]!.data.readUInt32BE(4),
      chunks[0]!.data[8],
      chunks[0]!.data[9],
    ]).toEqual([3, 2, 8, 2]);
    const rows = inflateSync(chunks[1]!.data);
    expect([...rows.subarray(0, 10)]).toEqual([0, 0, 0, 30, 10, 0, 30, 20, 0, 30]);
  });
});
