/** The embeddings group's Lambda entry. */
export { embeddings as handler } from './embeddings.js';
