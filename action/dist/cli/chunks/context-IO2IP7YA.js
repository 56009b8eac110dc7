import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{logger}from"./chunk-RFH54RO6.js";import"./chunk-AKIZPNFO.js";import"./chunk-A75SA247.js";export{logger};
