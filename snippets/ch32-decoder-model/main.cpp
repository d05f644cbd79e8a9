// Chapter 32
int main() { return 0; }
