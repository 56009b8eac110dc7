import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{forScreen}from"./chunk-SBG7ZAHY.js";import"./chunk-A75SA247.js";export{forScreen};
