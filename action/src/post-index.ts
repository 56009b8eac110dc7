import { run } from './post.js';

await run();
