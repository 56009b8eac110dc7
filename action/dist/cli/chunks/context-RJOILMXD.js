import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{logger}from"./chunk-ZHM6B2NV.js";import"./chunk-IYYOF3R2.js";import"./chunk-A75SA247.js";export{logger};
