/* runner - placeholder main until the judge lands in this branch. */
int main(void);
int main(void)
{
    return 1;
}
