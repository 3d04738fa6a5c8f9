a beta file
