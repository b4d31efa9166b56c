/** Little-endian float32, base64: what OpenAI sends for `encoding_format: "base64"`. */
export const float32Base64 = (vector: ArrayLike<number>): string => {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index]!, index * 4);
  return bytes.toString('base64');
};
