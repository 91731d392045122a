export const BACKEND_NAME = 'wholememory';
