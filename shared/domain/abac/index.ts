export * from './conditions';
export * from './evaluate';
export * from './operators';
export * from './parse';
export * from './typecheck';
export * from './values';
