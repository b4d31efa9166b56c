/** The images group's Lambda entry (buffered: one JSON answer). */
export { generateImages as handler } from './generate-images.js';
