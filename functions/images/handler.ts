/** The images group's Lambda entry (one JSON answer, streamed: it may pass a buffered answer's 6 MB). */
export { generateImages as handler } from './generate-images.js';
